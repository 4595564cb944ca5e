"""The team page: everyone sees the team; owners add, invite, change roles and remove — within their own team."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from tests.tracker.conftest import World
from tests.tracker.helpers import flash, text
from tracker.models import Invitation, Membership

ROLE_OF = re.compile(
    r'<td data-label="Name" class="text"><strong>([^<]+)</strong>.*?<td data-label="Role" class="role">(\w+)</td>', re.S
)


def team_url(world: World, suffix: str = "") -> str:
    return world.url(f"team/{suffix}")


def roles(world: World) -> dict[str, str]:
    """Username → role of every membership of the world's team, as stored."""
    return dict(Membership.objects.filter(tenant=world.tenant).values_list("user__username", "role"))


def membership(world: World, user: User) -> Membership:
    return Membership.objects.get(tenant=world.tenant, user=user)


def invite(world: World, role: str = "member", email: str = "") -> str:
    """An owner creates an invitation; the link the team page shows once (path and fragment: ``…/join/#<token>``)."""
    client = world.client_for(world.owner)
    response = client.post(team_url(world, "invitations/"), {"role": role, "email": email})
    assert response.status_code == 302
    page = text(client.get(team_url(world)))
    match = re.search(r'<input type="text" readonly value="http://testserver([^"]+)"', page)
    assert match, "the new invitation link is not on the team page"
    return match.group(1)


def open_link(client: Client, link: str) -> HttpResponse:
    """What a browser does with the link: the page's script POSTs the fragment's code, then the clean URL."""
    path, _, code = link.partition("#")
    response = client.post(path, {"token": code})
    assert (response.status_code, response["Location"]) == (302, path)
    return client.get(path)


# ------------------------------------------------------------------- who sees what


@pytest.mark.parametrize("role", ["owner", "member", "viewer"])
def test_everyone_in_the_team_sees_its_members_with_their_roles(world: World, role: str) -> None:
    response = world.client_for(getattr(world, role)).get(team_url(world))
    assert response.status_code == 200
    listed = dict(ROLE_OF.findall(text(response)))
    assert listed == {world.owner.username: "Owner", world.member.username: "Member", world.viewer.username: "Viewer"}
    assert f'href="/t/{world.slug}/team/">Team</a>' in text(response)  # the header's link


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_members_and_viewers_get_no_forms_on_the_team_page(world: World, role: str) -> None:
    page = text(world.client_for(getattr(world, role)).get(team_url(world)))
    assert f'action="/t/{world.slug}/team/' not in page
    for words in ("Invite to the team", "Set role", "Remove", "Create an invitation link", "Invite someone new"):
        assert words not in page


@pytest.mark.parametrize("role", ["member", "viewer"])
@pytest.mark.parametrize(
    ("suffix", "data"),
    [
        pytest.param("add/", {"who": "anyone", "role": "owner"}, id="add"),
        pytest.param("{member}/role/", {"role": "owner"}, id="role"),
        pytest.param("{member}/remove/", {}, id="remove"),
        pytest.param("invitations/", {"role": "owner"}, id="invite"),
    ],
)
def test_members_and_viewers_are_refused_every_change(
    world: World, role: str, suffix: str, data: dict[str, str]
) -> None:
    User.objects.create_user("anyone", password="pw-for-tests")
    before = roles(world)
    target = membership(world, world.viewer if role == "member" else world.member)
    response = world.client_for(getattr(world, role)).post(team_url(world, suffix.format(member=target.pk)), data)
    assert response.status_code == 403
    assert "Only owners of the team change who is in it." in text(response)
    assert roles(world) == before
    assert Invitation.objects.filter(tenant=world.tenant).count() == 0


def test_the_team_page_is_not_shown_to_people_outside_the_team(world: World, other_world: World) -> None:
    assert other_world.client_for(other_world.owner).get(team_url(world)).status_code == 404
    assert Client().get(team_url(world)).status_code == 302  # to the login page


# ------------------------------------------------------------------- adding people
# Owners invite people who have an account, who accept or decline: tests/tracker/test_personal_invitations.py.


# ------------------------------------------------------------------- roles and removal


def test_an_owner_changes_a_role_and_removes_a_member(world: World) -> None:
    client = world.client_for(world.owner)
    member = membership(world, world.member)
    response = client.post(team_url(world, f"{member.pk}/role/"), {"role": "owner"})
    assert flash(response) == [f"{world.member.username} is now owner."]
    viewer = membership(world, world.viewer)
    response = client.post(team_url(world, f"{viewer.pk}/remove/"))
    assert flash(response)[-1] == f"{world.viewer.username} was removed from {world.tenant.name}."
    assert roles(world) == {world.owner.username: "owner", world.member.username: "owner"}
    assert world.client_for(world.viewer).get(world.url()).status_code == 404  # gone from the team


@pytest.mark.parametrize(
    ("suffix", "data"),
    [pytest.param("role/", {"role": "member"}, id="demote"), pytest.param("remove/", {}, id="remove")],
)
def test_the_last_owner_cannot_be_demoted_or_removed(world: World, suffix: str, data: dict[str, str]) -> None:
    before = roles(world)
    me = membership(world, world.owner)
    response = world.client_for(world.owner).post(team_url(world, f"{me.pk}/{suffix}"), data)
    assert response.status_code == 200
    assert f"{world.tenant.name} needs at least one owner: make someone else an owner first." in text(response)
    assert roles(world) == before


def test_with_a_second_owner_the_first_may_step_down_and_then_sees_no_forms(world: World) -> None:
    client = world.client_for(world.owner)
    client.post(team_url(world, f"{membership(world, world.member).pk}/role/"), {"role": "owner"})
    response = client.post(team_url(world, f"{membership(world, world.owner).pk}/role/"), {"role": "viewer"})
    assert response.status_code == 302
    assert roles(world)[world.owner.username] == "viewer"
    assert "Set role" not in text(client.get(team_url(world)))


def test_an_owner_leaving_goes_home_when_another_owner_stays(world: World) -> None:
    client = world.client_for(world.owner)
    client.post(team_url(world, f"{membership(world, world.member).pk}/role/"), {"role": "owner"})
    response = client.post(team_url(world, f"{membership(world, world.owner).pk}/remove/"))
    assert (response.status_code, response["Location"]) == (302, "/")
    assert world.owner.username not in roles(world)


def test_an_unknown_role_is_an_error_on_the_page(world: World) -> None:
    member = membership(world, world.member)
    response = world.client_for(world.owner).post(team_url(world, f"{member.pk}/role/"), {"role": "king"})
    assert response.status_code == 200
    assert "Choose owner, member or viewer." in text(response)
    assert roles(world)[world.member.username] == "member"


@pytest.mark.parametrize(
    ("suffix", "data"),
    [pytest.param("role/", {"role": "viewer"}, id="role"), pytest.param("remove/", {}, id="remove")],
)
def test_an_owner_cannot_touch_another_teams_memberships(
    world: World, other_world: World, suffix: str, data: dict[str, str]
) -> None:
    theirs = membership(other_world, other_world.owner)
    before = roles(other_world)
    response = world.client_for(world.owner).post(team_url(world, f"{theirs.pk}/{suffix}"), data)
    assert response.status_code == 404
    assert roles(other_world) == before


def test_team_changes_only_take_post(world: World) -> None:
    member = membership(world, world.member)
    client = world.client_for(world.owner)
    for suffix in ("add/", f"{member.pk}/role/", f"{member.pk}/remove/", "invitations/"):
        assert client.get(team_url(world, suffix)).status_code == 405


# ------------------------------------------------------------------- invitations


def test_a_new_person_signs_up_through_an_invitation_link_once(world: World) -> None:
    link = invite(world, role="viewer", email="new@example.org")
    path = f"/t/{world.slug}/team/join/"
    assert link.startswith(f"{path}#")
    # The link is shown once: the next visit of the team page does not show it again.
    assert "readonly value=" not in text(world.client_for(world.owner).get(team_url(world)))

    visitor = Client()
    form = open_link(visitor, link)
    assert form.status_code == 200
    assert f"You are invited as a viewer of {world.tenant.name}." in text(form)
    assert 'value="new@example.org"' in text(form)  # the e-mail the owner noted
    response = visitor.post(
        path,
        {
            "username": "newbie",
            "email": "new@example.org",
            "password1": "a-long-pass-417",
            "password2": "a-long-pass-417",
        },
    )
    assert (response.status_code, response["Location"]) == (302, f"/t/{world.slug}/")
    assert roles(world)["newbie"] == "viewer"
    assert User.objects.get(username="newbie").check_password("a-long-pass-417")
    assert visitor.get(f"/t/{world.slug}/").status_code == 200  # signed in, in the team
    invitation = Invitation.objects.get(tenant=world.tenant)
    assert invitation.used_by == User.objects.get(username="newbie")

    second = Client()
    used = open_link(second, link)
    assert used.status_code == 410
    assert "This invitation link was already used." in text(used)
    again = second.post(path, {"username": "second", "password1": "a-long-pass-417", "password2": "a-long-pass-417"})
    assert again.status_code == 400  # no usable link is held: the page asks for a code, and creates nothing
    assert "Open your invitation" in text(again)
    assert not User.objects.filter(username="second").exists()


def test_a_bad_sign_up_form_is_a_form_error_and_creates_nothing(world: World) -> None:
    link = invite(world)
    visitor = Client()
    open_link(visitor, link)
    response = visitor.post(link.partition("#")[0], {"username": "x", "password1": "short", "password2": "other"})
    assert response.status_code == 200
    assert "The two password fields didn’t match." in text(response)
    assert not User.objects.filter(username="x").exists()
    assert Invitation.objects.get(tenant=world.tenant).used_at is None


def test_a_signed_in_person_joins_with_one_button(world: World, other_world: World) -> None:
    link = invite(world, role="member")
    outsider = world.client_for(other_world.member)
    page = text(open_link(outsider, link))
    assert f"Join as {other_world.member.username}" in page
    response = outsider.post(link.partition("#")[0])
    assert response.status_code == 302
    assert roles(world)[other_world.member.username] == "member"


def test_someone_already_in_the_team_leaves_the_link_for_someone_else(world: World) -> None:
    link = invite(world)
    viewer = world.client_for(world.viewer)
    open_link(viewer, link)
    response = viewer.post(link.partition("#")[0])
    assert "You are already in" in text(response)
    assert roles(world)[world.viewer.username] == "viewer"
    assert Invitation.objects.get(tenant=world.tenant).used_at is None


def test_a_tampered_link_or_another_teams_address_is_not_valid(world: World, other_world: World) -> None:
    link = invite(world)
    token = link.partition("#")[2]
    for bad in (link[:-3] + "xx", f"/t/{other_world.slug}/team/join/#{token}", f"/t/{world.slug}/team/join/#nonsense"):
        response = open_link(Client(), bad)
        assert response.status_code == 410, bad
        assert "This invitation link is not valid." in text(response)


def test_an_invitation_expires_after_seven_days(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    link = invite(world)
    later = time.time() + 7 * 24 * 3600 + 60
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    response = open_link(Client(), link)
    assert response.status_code == 410
    assert "This invitation link has expired." in text(response)


def test_a_withdrawn_invitation_stops_working(world: World, other_world: World) -> None:
    link = invite(world)
    invitation = Invitation.objects.get(tenant=world.tenant)
    assert (
        other_world.client_for(other_world.owner)
        .post(other_world.url(f"team/invitations/{invitation.pk}/withdraw/"))
        .status_code
        == 404
    )  # not theirs to withdraw
    client = world.client_for(world.owner)
    assert "Open invitations" in text(client.get(team_url(world)))
    client.post(team_url(world, f"invitations/{invitation.pk}/withdraw/"))
    assert "Open invitations" not in text(client.get(team_url(world)))
    response = open_link(Client(), link)
    assert response.status_code == 410
    assert "This invitation was withdrawn." in text(response)
