"""The team's activity feed: a day of everything that happened, newest first, from the sharded by-day index."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from ddbmodels import events
from ddbmodels.core import capacity
from tests.tracker.activity_helpers import drop_day_tables
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.inbox_helpers import without_header
from tracker.views.activity import BAD_DAY

DAY = datetime(2031, 5, 14, tzinfo=UTC)  # in the future of every other test's events: a day of this test's own
pytestmark = pytest.mark.usefixtures("_drop_day_tables")


@pytest.fixture
def _drop_day_tables() -> Iterator[None]:
    """This test's day tables go afterwards (other tests' archive jobs must not see them)."""
    yield
    drop_day_tables([DAY - timedelta(days=1), DAY])


def put(world: World, number: int, kind: str, at: datetime, actor: str = "", **data: object) -> None:
    events.event_put(
        stream=f"{world.slug}#WEB#{number}",
        kind=kind,
        actor=actor or world.member.username,
        tenant=world.slug,
        data=data,
        when=at,
        period="day",
    )


def lines(page: str) -> list[str]:
    feed = page[page.index('<ol class="events feed">') :]
    feed = feed[: feed.index("</ol>")]
    found = re.findall(
        r"<time[^>]*>([^<]+)</time> · <strong>([^<]+)</strong> ([^<]+?)(?: on <a href=\"([^\"]+)\">([^<]+)</a>)?</li>",
        feed,
    )
    return [f"{t} {who} {what} {ref} {href}" for t, who, what, href, ref in found]


@override_settings(EVENTS_PERIOD="day")
def test_a_day_of_the_team_newest_first_each_line_linking_to_its_issue(
    world: World, other_world: World, fixed_clock
) -> None:  # type: ignore[no-untyped-def]
    fixed_clock(DAY + timedelta(hours=20))
    m = world.member.username
    put(world, 1, "issue.created", DAY + timedelta(hours=9), title="One")
    put(world, 2, "issue.status", DAY + timedelta(hours=11), **{"from": "open", "to": "closed"})
    put(world, 7, "comment.added", DAY + timedelta(hours=10), comment="k", mentions=[], excerpt="hi")
    put(world, 1, "issue.edited", DAY - timedelta(hours=1), changed={})  # the day before
    put(other_world, 1, "issue.created", DAY + timedelta(hours=12), title="Not ours")

    client = world.client_for(world.viewer)
    with capacity.measure() as meter:
        page = text(client.get(f"/t/{world.slug}/activity/", {"day": "2031-05-14"}))
    base = f"/t/{world.slug}/p/WEB"
    assert lines(page) == [
        f"11:00 UTC {m} changed the status from Open to Closed WEB-2 {base}/2/",
        f"10:00 UTC {m} commented WEB-7 {base}/7/",
        f"09:00 UTC {m} created the issue WEB-1 {base}/1/",
    ]
    assert without_header(meter).get("Query") == 4  # one per by_day shard (EVENTS_SHARDS), merged
    assert '<a rel="prev" href="?day=2031-05-13">' in page
    assert '<a rel="next" href="?day=2031-05-15">' not in page  # today: nothing newer yet

    before = text(client.get(f"/t/{world.slug}/activity/", {"day": "2031-05-13"}))
    assert lines(before) == [f"23:00 UTC {m} saved the issue without changing it WEB-1 {base}/1/"]
    assert '<a rel="next" href="?day=2031-05-14">' in before


@override_settings(EVENTS_PERIOD="day")
def test_today_is_the_default_and_a_quiet_day_says_so(world: World, fixed_clock) -> None:  # type: ignore[no-untyped-def]
    fixed_clock(DAY + timedelta(days=3, hours=8))
    page = text(world.client_for(world.member).get(f"/t/{world.slug}/activity/"))
    assert "activity on Saturday 17 May 2031" in page
    assert "Nothing happened on this day." in page


@pytest.mark.parametrize("day", ["yesterday", "2031-13-01", "2031-5-1", "2031-05-14T00:00", "20310514"])
def test_a_bad_day_is_a_400_that_says_how_to_write_it(world: World, day: str) -> None:
    response = world.client_for(world.member).get(f"/t/{world.slug}/activity/", {"day": day})
    assert response.status_code == 400
    assert BAD_DAY in text(response)


def test_the_feed_is_only_for_the_teams_members_and_linked_from_the_projects(world: World, other_world: World) -> None:
    assert world.client_for(other_world.member).get(f"/t/{world.slug}/activity/").status_code == 404
    projects = text(world.client_for(world.member).get(f"/t/{world.slug}/"))
    assert f'href="/t/{world.slug}/activity/"' in projects
