"""The text boxes' helpers (tracker/views/assist.py): suggestions as one types, and the markdown preview."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.test_markdown import Elements
from tracker.models import Membership
from tracker.selectors.assist import PREVIEW_MAX, member_suggestions


def suggest(client: Client, world: World, **params: str) -> object:
    return client.get(world.url("autocomplete/"), params)


def add_people(world: World, names: list[str], role: str = "member") -> None:
    for name in names:
        user = User.objects.create_user(name, password="pw-for-tests")
        Membership.objects.create(user=user, tenant=world.tenant, role=role)


# ------------------------------------------------------------------ autocomplete: people


def test_people_starting_with_the_prefix_any_case_by_name_at_most_ten(world: World) -> None:
    add_people(world, [f"ann{n:02}" for n in range(12)] + ["Anders", "bert"])
    client = world.client_for(world.member)
    response = suggest(client, world, kind="member", q="AN")
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert response["Content-Type"] == "application/json"  # type: ignore[index]
    found = response.json()  # type: ignore[attr-defined]
    assert found[0] == {"value": "Anders", "label": "Anders", "colour": None}
    assert [s["value"] for s in found] == ["Anders"] + [f"ann{n:02}" for n in range(9)]
    assert suggest(client, world, kind="member", q="ber").json() == [  # type: ignore[attr-defined]
        {"value": "bert", "label": "bert", "colour": None}
    ]
    assert suggest(client, world, kind="member", q="zed").json() == []  # type: ignore[attr-defined]


def test_viewers_are_offered_for_mentions_but_not_when_assignable(world: World) -> None:
    viewer = world.viewer.username
    client = world.client_for(world.member)
    offered = suggest(client, world, kind="member", q=viewer).json()  # type: ignore[attr-defined]
    assert offered == [{"value": viewer, "label": f"{viewer} (viewer)", "colour": None}]
    assert suggest(client, world, kind="member", q=viewer, assignable="1").json() == []  # type: ignore[attr-defined]
    everyone = suggest(client, world, kind="member", q="", assignable="1").json()  # type: ignore[attr-defined]
    assert [s["value"] for s in everyone] == sorted([world.member.username, world.owner.username])


def test_people_are_one_sql_query_and_no_dynamodb_read(world: World, django_assert_num_queries: object) -> None:
    with capacity.measure() as meter, django_assert_num_queries(1):  # type: ignore[operator]
        found = member_suggestions(tenant=world.tenant, prefix="", assignable=True)
    assert len(found) == 2
    assert dict(meter.by_operation) == {}


def test_another_teams_people_are_never_suggested_and_its_url_is_a_404(world: World, other_world: World) -> None:
    client = world.client_for(world.member)
    names = [s["value"] for s in suggest(client, world, kind="member", q="").json()]  # type: ignore[attr-defined]
    assert other_world.member.username not in names
    assert len(names) == 3
    assert suggest(client, other_world, kind="member", q="").status_code == 404  # type: ignore[attr-defined]
    assert Client().get(world.url("autocomplete/"), {"kind": "member"}).status_code == 302  # to the login page


def test_an_unknown_kind_or_an_overlong_prefix_is_a_400(world: World) -> None:
    client = world.client_for(world.viewer)
    assert suggest(client, world, kind="project", q="a").status_code == 400  # type: ignore[attr-defined]
    assert suggest(client, world, q="a").status_code == 400  # type: ignore[attr-defined]
    assert suggest(client, world, kind="member", q="a" * 151).status_code == 400  # type: ignore[attr-defined]
    assert client.post(world.url("autocomplete/"), {"kind": "member"}).status_code == 405


# ------------------------------------------------------------------ preview


def preview(client: Client, world: World, body: str) -> object:
    return client.post(world.url("preview/"), {"body": body})


def test_preview_is_the_markdown_as_the_issue_page_shows_it_mentions_linked(world: World) -> None:
    owner, viewer = world.owner.username, world.viewer.username
    client = world.client_for(world.member)
    with capacity.measure() as meter:
        response = preview(client, world, f"**bold** @{owner} and @{viewer}, not @stranger\r\n# Steps")
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert response["Content-Type"] == "text/html; charset=utf-8"  # type: ignore[index]
    assert text(response) == (  # type: ignore[arg-type]
        f'<p><strong>bold</strong> <a href="/t/{world.slug}/issues/?assignee={owner}" class="mention" '
        f'rel="nofollow noopener">@{owner}</a> and <a href="/t/{world.slug}/issues/?assignee={viewer}" '
        'class="mention" rel="nofollow noopener">@' + viewer + "</a>, not @stranger</p>\n<h3>Steps</h3>\n"
    )
    assert dict(meter.by_operation) == {}  # no DynamoDB at all: nothing read, nothing written
    assert text(preview(client, world, "  \n")) == '<p class="muted">Nothing to preview.</p>'  # type: ignore[arg-type]


def test_preview_sanitises_as_the_pages_do(world: World) -> None:
    client = world.client_for(world.viewer)  # viewers may preview too (they read the team)
    html = text(preview(client, world, "<script>alert(1)</script>"))  # type: ignore[arg-type]
    assert html == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    for link in ("[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](data:text/html;base64,PHNjcmlwdD4=)"):
        html = text(preview(client, world, link))  # type: ignore[arg-type]
        assert "a" not in Elements(html).tags, link
        assert "href" not in html, link
    elements = Elements(text(preview(client, world, '<img src=x onerror="alert(1)"> ![p](http://example.com/p.png)')))  # type: ignore[arg-type]
    assert "img" not in elements.tags
    assert not any(name.startswith("on") for name in elements.attributes())
    assert ("a", {"href": "http://example.com/p.png", "rel": "nofollow noopener"}) in elements.found


def test_preview_takes_the_longest_text_a_box_takes_and_refuses_more(world: World) -> None:
    client = world.client_for(world.member)
    assert preview(client, world, "a" * PREVIEW_MAX).status_code == 200  # type: ignore[attr-defined]
    assert preview(client, world, "a\r\n" * (PREVIEW_MAX // 2)).status_code == 200  # type: ignore[attr-defined]
    response = preview(client, world, "a" * (PREVIEW_MAX + 1))
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert text(response) == "Too long to preview: a text holds at most 10,000 characters; this one has 10,001."  # type: ignore[arg-type]


def test_preview_wants_the_csrf_token_a_post_and_the_team(world: World, other_world: World) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(world.member)
    assert strict.post(world.url("preview/"), {"body": "hi"}).status_code == 403
    client = world.client_for(world.member)
    assert client.get(world.url("preview/"), {"body": "hi"}).status_code == 405
    assert preview(client, other_world, "hi").status_code == 404  # type: ignore[attr-defined]
    assert preview(Client(), world, "hi").status_code == 302  # type: ignore[attr-defined]
