"""The app's one cursor codec: every list's page links are signed, bound to their list, and expire.

An expired, tampered or another list's cursor is a BadCursor (a 400 page that says which), for
every list the app pages: issue lists (by number and by index key), an issue's history and
comments, the inbox, the order list, the admin's item browser. The age comes from ddbmodels' one
clock (``keys.utcnow``): pinning it pins the cursors.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from ddbmodels.issues import IssueItem, collection_key
from tests.conftest import MovingClock
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, pager_link, text, unchanged
from tracker import cursors, item_links
from tracker.exceptions import BadCursor
from tracker.models import Membership, Tenant
from tracker.selectors import activity, comments, inbox, orders

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DAY = 24 * 3600

Move = MovingClock


@pytest.fixture
def clock(moving_clock: MovingClock) -> Move:
    """``clock(at)``: the code's clock says ``at`` from now on (``moving_clock``), T0 to begin with; may move again."""
    moving_clock(T0)
    return moving_clock


def _issue() -> IssueItem:
    return IssueItem(collection_key("acme", "WEB"), 7)


def _membership() -> Membership:
    return Membership(tenant=Tenant(slug="acme"), user=User(username="alice"))


# Each list: (a cursor it issued, the same list opening it, another list opening it).
LISTS: dict[str, tuple[Callable[[], str], Callable[[str], object], Callable[[str], object]]] = {
    "issue list": (
        lambda: cursors.encode(listing="acme#WEB|open", after=26, direction="older"),
        lambda token: cursors.decode(token, listing="acme#WEB|open"),
        lambda token: cursors.decode(token, listing="acme#WEB|closed"),
    ),
    "issue list by index key": (
        lambda: cursors.encode_key(listing="acme|mine", key={"pk": {"S": "acme#WEB"}, "n": {"N": "3"}}),
        lambda token: cursors.decode_key(token, listing="acme|mine"),
        lambda token: cursors.decode_key(token, listing="globex|mine"),
    ),
    "history": (
        lambda: activity._encode("acme#WEB#7", "2026-03", "2026-03-01T08:00:00.000Z#0a1b"),
        lambda token: activity._decode(token, "acme#WEB#7"),
        lambda token: activity._decode(token, "acme#WEB#8"),
    ),
    "comments": (
        lambda: comments.comment_cursor(issue=_issue(), direction=comments.LATEST),
        lambda token: comments.comment_list_page(issue=_issue(), cursor=token),  # refused before any read
        lambda token: comments.comment_list_page(issue=IssueItem(collection_key("acme", "WEB"), 8), cursor=token),
    ),
    "inbox": (
        lambda: cursors.sign(inbox._SALT, listing="acme#alice", k="2026-03-01T08:00:00.000Z#0a1b2c3d"),
        lambda token: inbox.inbox_page(membership=_membership(), cursor=token),  # refused before any read
        lambda token: inbox.inbox_page(
            membership=Membership(tenant=Tenant(slug="acme"), user=User(username="bob")), cursor=token
        ),
    ),
    "orders": (
        lambda: cursors.sign(orders._CURSOR_SALT, listing="acme|7d||", a="2026-03-01T08:00:00.000Z#1", d="older"),
        lambda token: orders._decode(token, "acme|7d||"),
        lambda token: orders._decode(token, "acme|24h||"),
    ),
    "item browser": (
        lambda: item_links.cursor_encode(
            binding="issues|query|acme#WEB", position=item_links.Position().forward({"pk": {"S": "acme#WEB"}})
        ),
        lambda token: item_links.cursor_decode(token, binding="issues|query|acme#WEB"),
        lambda token: item_links.cursor_decode(token, binding="issues|query|acme#API"),
    ),
}


@pytest.mark.parametrize("name", LISTS)
@override_settings(EVENTS_PERIOD="month")
def test_every_list_s_cursor_opens_for_a_day_then_is_expired(name: str, clock: Move) -> None:
    issue, same, _ = LISTS[name]
    token = issue()
    clock(T0 + timedelta(seconds=DAY))  # the last second it is good for
    same(token)  # no BadCursor (the comments and the inbox then read their page)
    clock(T0 + timedelta(seconds=DAY + 1))
    with pytest.raises(BadCursor) as refused:
        same(token)
    assert str(refused.value) == cursors.EXPIRED


@pytest.mark.parametrize("name", LISTS)
@override_settings(EVENTS_PERIOD="month")
def test_every_list_refuses_a_tampered_cursor_and_another_list_s(name: str, clock: Move) -> None:
    issue, same, other = LISTS[name]
    token = issue()
    for index in (len(token) // 3, len(token) - 2):  # in the payload, in the signature
        with pytest.raises(BadCursor, match="invalid"):
            same(token[:index] + ("A" if token[index] != "A" else "b") + token[index + 1 :])
    with pytest.raises(BadCursor, match="belongs to another"):
        other(token)


def test_a_tampered_cursor_is_invalid_even_when_it_is_also_old(clock: Move) -> None:
    token = cursors.encode(listing="x", after=3, direction="older")
    clock(T0 + timedelta(days=30))
    with pytest.raises(BadCursor) as refused:
        cursors.decode(token[:-2] + ("zz" if not token.endswith("zz") else "yy"), listing="x")
    assert str(refused.value) == cursors.INVALID


def test_a_cursor_of_another_kind_of_list_is_invalid() -> None:
    """The salt is the kind: an issue list's cursor does not open as a key cursor, even for the same name."""
    token = cursors.encode(listing="x", after=3, direction="older")
    with pytest.raises(BadCursor) as refused:
        cursors.decode_key(token, listing="x")
    assert str(refused.value) == cursors.INVALID


@override_settings(CURSOR_MAX_AGE_SECONDS=60)
def test_the_age_limit_is_the_setting(clock: Move) -> None:
    token = cursors.encode(listing="x", after=3, direction="older")
    clock(T0 + timedelta(seconds=60))
    assert cursors.decode(token, listing="x") == cursors.Cursor(after=3, direction="older")
    clock(T0 + timedelta(seconds=61))
    with pytest.raises(BadCursor, match="expired"):
        cursors.decode(token, listing="x")


def test_an_item_link_has_no_age_limit(clock: Move) -> None:
    key = {"pk": {"S": "acme#WEB"}, "n": {"N": "7"}}
    token = item_links.key_encode(table="issues", key=key)
    clock(T0 + timedelta(days=400))
    assert item_links.key_decode(token, table="issues") == key


def test_an_expired_page_link_is_a_400_that_says_so_and_changes_nothing(world: World, clock: Move) -> None:
    for i in range(27):
        new_issue(world, f"Issue {i + 1}")
    client = world.client_for(world.member)
    link = pager_link(client.get(world.project_url()), "next")
    assert link is not None
    cursor = parse_qs(urlsplit(link).query)["cursor"][0]
    assert client.get(world.project_url(), {"cursor": cursor}).status_code == 200
    clock(T0 + timedelta(seconds=DAY + 1))
    with unchanged(world):
        response = client.get(world.project_url(), {"cursor": cursor})
    assert response.status_code == 400
    assert cursors.EXPIRED in text(response)
    assert f'<a href="{world.project_url()}" class="back">Back to the first page</a>' in text(response)


def test_a_bad_page_link_keeps_the_list_s_filter_on_its_way_back(world: World) -> None:
    response = world.client_for(world.member).get(world.project_url(), {"status": "open", "cursor": "garbage"})
    assert response.status_code == 400
    assert cursors.INVALID in text(response)
    assert f'<a href="{world.project_url()}?status=open" class="back">Back to the first page</a>' in text(response)
