"""Saved views: saved once per form, in the Views menu, shared with the team or not, changed by their author only."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core import capacity
from ddbmodels.core.errors import Unavailable
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, text
from tracker.models import Membership
from tracker.services import team as team_services


def save_form(world: World, client: Client, query: str = "is:open label:bug", project: str = "") -> dict[str, str]:
    """The "Save this view" form as the list's link opens it: its key and the list's query filled in."""
    page = client.get(world.url("views/new/"), {"q": query, "project": project})
    assert page.status_code == 200
    if project:
        assert hidden_value(page, "project") == project
    return {"idempotency_key": hidden_value(page, "idempotency_key"), "q": query, "project": project}


def save(world: World, client: Client, name: str = "Open bugs", **kwargs: str) -> str:
    response = client.post(world.url("views/new/"), {**save_form(world, client, **kwargs), "name": name})
    assert response.status_code == 302, text(response)
    return str(response["Location"])


def menu(world: World, client: Client) -> list[str]:
    """The names in the header's Views menu of any team page."""
    page = text(client.get(world.url("views/")))
    panel = page.split('class="menu-panel"', 1)[1].split("</details>", 1)[0]
    return re.findall(r'<a href="/t/[^"]+/views/[0-9A-Z]{26}/">([^<]+)</a>', panel)


def mine(world: World, username: str) -> list[preferences.SavedView]:
    return preferences.views_mine(world.slug, username)


def test_the_list_pages_link_to_save_their_query(world: World) -> None:
    client = world.client_for(world.member)
    project_list = text(client.get(world.project_url(), {"q": "is:open label:bug"}))
    team_list = text(client.get(world.url("issues/"), {"q": "assignee:@me"}))

    assert f'href="/t/{world.slug}/views/new/?project=WEB&amp;q=is%3Aopen%20label%3Abug"' in project_list
    assert f'href="/t/{world.slug}/views/new/?q=assignee%3A%40me"' in team_list


def test_a_view_is_saved_once_with_its_forms_key_and_opens_as_its_list(world: World) -> None:
    client = world.client_for(world.member)
    form = {**save_form(world, client, project="WEB"), "name": "Open bugs"}

    first = client.post(world.url("views/new/"), form)
    again = client.post(world.url("views/new/"), form)  # a double click, a retry: the same key

    assert first.status_code == again.status_code == 302
    assert first["Location"] == again["Location"] == f"/t/{world.slug}/p/WEB/?q=is%3Aopen+label%3Abug"
    (view,) = mine(world, world.member.username)
    assert (view.name, view.query, view.project, view.author) == (
        "Open bugs",
        "is:open label:bug",
        "WEB",
        world.member.username,
    )
    assert menu(world, client) == ["Open bugs"]
    opened = client.get(world.url(f"views/{view.id}/"))
    assert opened.status_code == 302
    assert opened["Location"] == first["Location"]


def test_a_replayed_form_says_nothing_was_saved_twice(world: World) -> None:
    client = world.client_for(world.member)
    form = {**save_form(world, client), "name": "Bugs"}
    client.post(world.url("views/new/"), form)

    again = client.post(world.url("views/new/"), form, follow=True)

    assert any("nothing was saved twice" in message for message in flash(again))
    assert len(mine(world, world.member.username)) == 1


def test_a_shared_view_is_in_a_teammates_menu_and_a_private_one_is_not(world: World) -> None:
    alice, bob = world.client_for(world.member), world.client_for(world.owner)
    save(world, alice, "Shared bugs")
    save(world, alice, "Private", query="assignee:@me")
    shared, private = sorted(mine(world, world.member.username), key=lambda v: v.name != "Shared bugs")

    response = alice.post(world.url(f"views/{shared.id}/change/"), {"action": "share", "version": 1})

    assert response.status_code == 302
    assert menu(world, bob) == ["Shared bugs"]
    assert bob.get(world.url(f"views/{shared.id}/")).status_code == 302
    assert bob.get(world.url(f"views/{private.id}/")).status_code == 404  # another's private view
    assert "Shared bugs" in text(bob.get(world.url("views/")))
    assert "Private" not in text(bob.get(world.url("views/")))
    alice.post(world.url(f"views/{shared.id}/change/"), {"action": "unshare", "version": 2})
    assert menu(world, bob) == []  # the cache was dropped with the change


def test_only_the_author_renames_shares_or_deletes_and_a_stale_version_changes_nothing(world: World) -> None:
    alice, bob = world.client_for(world.member), world.client_for(world.owner)
    save(world, alice, "Bugs")
    (view,) = mine(world, world.member.username)
    alice.post(world.url(f"views/{view.id}/change/"), {"action": "share", "version": 1})

    assert bob.post(world.url(f"views/{view.id}/change/"), {"action": "delete", "version": 2}).status_code == 404
    assert (
        bob.post(world.url(f"views/{view.id}/change/"), {"action": "rename", "name": "Mine", "version": 2}).status_code
        == 404
    )
    stale = alice.post(world.url(f"views/{view.id}/change/"), {"action": "rename", "name": "Old tab", "version": 1})
    assert stale.status_code == 409
    assert mine(world, world.member.username)[0].name == "Bugs"

    renamed = alice.post(world.url(f"views/{view.id}/change/"), {"action": "rename", "name": "Defects", "version": 2})
    assert renamed.status_code == 302
    assert menu(world, bob) == ["Defects"]
    assert alice.post(world.url(f"views/{view.id}/change/"), {"action": "delete", "version": 3}).status_code == 302
    assert mine(world, world.member.username) == []
    assert preferences.views_shared(world.slug) == []
    assert menu(world, bob) == []
    assert menu(world, alice) == []


def test_a_viewer_saves_views_for_themself_but_cannot_share_them(world: World) -> None:
    carol = world.client_for(world.viewer)
    save(world, carol, "My watch list", query="is:open sort:updated")
    (view,) = mine(world, world.viewer.username)

    page = text(carol.get(world.url("views/")))
    refused = carol.post(world.url(f"views/{view.id}/change/"), {"action": "share", "version": 1})

    assert "Share with the team" not in page
    assert "members and owners can share" in page
    assert refused.status_code == 403
    assert preferences.views_shared(world.slug) == []
    assert mine(world, world.viewer.username)[0].version == 1


def test_another_teams_views_pages_are_404_and_its_views_unreachable(world: World, other_world: World) -> None:
    save(world, world.client_for(world.member), "Bugs")
    (view,) = mine(world, world.member.username)
    outsider = other_world.client_for(other_world.owner)

    assert outsider.get(world.url("views/")).status_code == 404
    assert outsider.get(world.url(f"views/{view.id}/")).status_code == 404
    assert outsider.get(other_world.url(f"views/{view.id}/")).status_code == 404  # not in their team either
    assert outsider.post(world.url("views/new/"), {"name": "x", "q": ""}).status_code == 404


def test_bad_input_is_a_form_error_and_saves_nothing(world: World) -> None:
    client = world.client_for(world.member)
    form = save_form(world, client)

    for bad in (
        {"name": ""},
        {"name": "x" * 81},
        {"name": "ok", "q": "is:nonsense"},
        {"name": "ok", "project": "web!"},
    ):
        response = client.post(world.url("views/new/"), {**form, **bad})
        assert response.status_code == 400, bad
    assert client.post(world.url("views/new/"), {**form, "name": "ok", "project": "NOPE"}).status_code == 404
    assert client.get(world.url("views/not-a-view/")).status_code == 404
    assert mine(world, world.member.username) == []


def test_the_menu_costs_two_queries_then_nothing(world: World) -> None:
    client = world.client_for(world.member)
    save(world, client, "Bugs")
    client.get(world.url("views/"))  # fills both caches

    with capacity.measure() as cold_then_warm:
        client.get(world.project_url())
    patterns = cold_then_warm.by_pattern
    assert "preferences.views_mine" not in patterns
    assert "preferences.views_shared" not in patterns

    cache.clear()
    with capacity.measure() as cold:
        client.get(world.project_url())
    assert cold.by_pattern["preferences.views_mine"].requests == 1
    assert cold.by_pattern["preferences.views_shared"].requests == 1
    menu_rcu = cold.by_pattern["preferences.views_mine"].rcu + cold.by_pattern["preferences.views_shared"].rcu
    assert menu_rcu <= 1  # 0.5 each (DynamoDB Local charges an empty Query nothing)


def test_a_persons_views_stop_at_the_limit_with_a_clear_refusal_and_all_stay_listed(world: World) -> None:
    client = world.client_for(world.member)
    me = world.member.username
    for n in range(preferences.VIEWS_MAX):
        preferences.view_save(world.slug, me, view_id=new_attachment_id(), name=f"View {n:03}", query="is:open")
    form = {**save_form(world, client), "name": "One too many"}

    refused = client.post(world.url("views/new/"), form)

    assert refused.status_code == 400
    assert f"You have {preferences.VIEWS_MAX} saved views in" in text(refused)
    assert "delete one" in text(refused)
    assert len(mine(world, me)) == preferences.VIEWS_MAX
    listed = text(client.get(world.url("views/")))
    assert all(f">View {n:03}<" in listed for n in range(preferences.VIEWS_MAX))  # every one can be changed
    (first,) = [v for v in mine(world, me) if v.name == "View 000"]
    assert client.post(world.url(f"views/{first.id}/change/"), {"action": "delete", "version": 1}).status_code == 302
    assert client.post(world.url("views/new/"), form).status_code == 302  # room again: the same form saves
    assert "One too many" in [v.name for v in mine(world, me)]


def test_the_teams_shared_views_stop_at_the_limit(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preferences, "SHARED_MAX", 2)
    alice, bob = world.client_for(world.member), world.client_for(world.owner)
    for client, name in ((alice, "A"), (bob, "B"), (alice, "C")):
        save(world, client, name)
    views = {v.name: v for v in mine(world, world.member.username) + mine(world, world.owner.username)}
    assert alice.post(world.url(f"views/{views['A'].id}/change/"), {"action": "share", "version": 1}).status_code == 302
    assert bob.post(world.url(f"views/{views['B'].id}/change/"), {"action": "share", "version": 1}).status_code == 302

    refused = alice.post(world.url(f"views/{views['C'].id}/change/"), {"action": "share", "version": 1})

    assert refused.status_code == 409
    assert f"{world.tenant.name} shares 2 views already" in text(refused)
    assert sorted(v.name for v in preferences.views_shared(world.slug)) == ["A", "B"]
    assert {v.name: v.shared for v in mine(world, world.member.username)} == {"A": True, "C": False}


def test_an_owner_takes_a_teammates_shared_view_out_of_the_menu(world: World) -> None:
    alice, bob, carol = world.client_for(world.member), world.client_for(world.owner), world.client_for(world.viewer)
    save(world, alice, "Bugs")
    (view,) = mine(world, world.member.username)
    alice.post(world.url(f"views/{view.id}/change/"), {"action": "share", "version": 1})

    assert "Take it out of the team’s menu" in text(bob.get(world.url("views/")))
    assert "Take it out of the team’s menu" not in text(carol.get(world.url("views/")))
    assert carol.post(world.url(f"views/{view.id}/change/"), {"action": "unshare", "version": 2}).status_code == 404
    assert bob.post(world.url(f"views/{view.id}/change/"), {"action": "unshare", "version": 1}).status_code == 409
    done = bob.post(world.url(f"views/{view.id}/change/"), {"action": "unshare", "version": 2}, follow=True)

    assert f"“Bugs” by {world.member.username} is no longer in the team’s menu" in text(done)
    assert preferences.views_shared(world.slug) == []
    assert menu(world, carol) == []
    (after,) = mine(world, world.member.username)  # the author keeps it, theirs alone again
    assert (after.shared, after.version) == (False, 3)


def test_a_member_who_leaves_or_is_removed_takes_their_shared_views_out_of_the_menu(world: World) -> None:
    alice, bob, carol = world.client_for(world.member), world.client_for(world.owner), world.client_for(world.viewer)
    save(world, alice, "Alice bugs")
    save(world, bob, "Bob bugs")
    for who, client in ((world.member, alice), (world.owner, bob)):
        (view,) = mine(world, who.username)
        client.post(world.url(f"views/{view.id}/change/"), {"action": "share", "version": 1})
    assert menu(world, carol) == ["Alice bugs", "Bob bugs"]
    gone = Membership.objects.get(tenant=world.tenant, user=world.member)

    removed = bob.post(world.url(f"team/{gone.pk}/remove/"))

    assert removed.status_code == 302
    assert [v.name for v in preferences.views_shared(world.slug)] == ["Bob bugs"]
    assert menu(world, carol) == ["Bob bugs"]
    assert [(v.name, v.shared) for v in mine(world, world.member.username)] == [("Alice bugs", False)]


def test_a_removal_stands_when_dynamodb_fails_to_take_the_views_out(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(**_kwargs: object) -> int:
        raise Unavailable("DynamoDB is throttling this table")

    monkeypatch.setattr(team_services, "views_of_leaver_unshare", down)
    gone = Membership.objects.get(tenant=world.tenant, user=world.member)

    removed = world.client_for(world.owner).post(world.url(f"team/{gone.pk}/remove/"))

    assert removed.status_code == 302  # the person is out; an owner takes their views out of the menu
    assert not Membership.objects.filter(pk=gone.pk).exists()
