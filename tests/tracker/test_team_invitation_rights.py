"""An invitation is worth its creator's right and its team's life (issue 20, finding 2), and its token stays out
of every URL the server receives (finding 14): links of someone no longer an owner, or of a team being offboarded,
are refused — when opened and again under lock when accepted — and withdrawn."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from tests.tracker.conftest import World
from tests.tracker.helpers import flash, text
from tests.tracker.test_team import invite, membership, open_link, roles, team_url
from tracker.log_filters import RedactInvitationTokens
from tracker.models import Invitation, Membership, RetiredSlug
from tracker.services import team as team_services

NOT_OWNER = "The person who sent this invitation is no longer an owner of {team}, so it no longer works."
CLOSED = "{team} has closed its space on Tracker: nobody can join it any more."
SIGN_UP = {"username": "newbie", "email": "", "password1": "a-long-pass-417", "password2": "a-long-pass-417"}


def second_owner(world: World) -> Client:
    """The member becomes an owner (so the first owner may step down or leave); the member's client."""
    world.client_for(world.owner).post(
        team_url(world, f"{membership(world, world.member).pk}/role/"), {"role": "owner"}
    )
    assert roles(world)[world.member.username] == "owner"
    return world.client_for(world.member)


def refused(response: object, reason: str) -> None:
    assert getattr(response, "status_code", None) == 410
    assert "This link cannot be used" in text(response)  # type: ignore[arg-type]
    assert reason in text(response)  # type: ignore[arg-type]


def step_down(world: World, member: Client) -> None:
    member.post(team_url(world, f"{membership(world, world.owner).pk}/role/"), {"role": "viewer"})


def leave(world: World, member: Client) -> None:
    world.client_for(world.owner).post(team_url(world, f"{membership(world, world.owner).pk}/remove/"))


def removed(world: World, member: Client) -> None:
    member.post(team_url(world, f"{membership(world, world.owner).pk}/remove/"))


def deactivated(world: World, member: Client) -> None:
    world.owner.is_active = False
    world.owner.save()


def deleted(world: World, member: Client) -> None:
    User.objects.filter(pk=world.owner.pk).delete()


def admin_role_change(world: World, member: Client) -> None:
    """What the admin's Membership page does: save() with a new role."""
    mine = membership(world, world.owner)
    mine.role = "member"
    mine.save()


@pytest.mark.parametrize(
    "stop", [step_down, leave, removed, deactivated, deleted, admin_role_change], ids=lambda f: f.__name__
)
def test_an_owners_links_stop_working_and_are_withdrawn_when_they_stop_being_an_owner(
    world: World, stop: Callable[[World, Client], None]
) -> None:
    link = invite(world, role="owner")
    member = second_owner(world)
    stop(world, member)
    invitation = Invitation.objects.get(tenant=world.tenant)
    assert invitation.withdrawn_at is not None  # off the team page's open invitations, for every owner
    visitor = Client()
    response = open_link(visitor, link)
    assert response.status_code == 410
    assert "This invitation was withdrawn." in text(response)
    assert visitor.post(link.partition("#")[0], SIGN_UP).status_code == 400  # nothing held: nobody signs up
    assert not User.objects.filter(username="newbie").exists()
    assert "Open invitations" not in text(member.get(team_url(world)))


def between_open_and_accept(monkeypatch: pytest.MonkeyPatch, change: Callable[[], object]) -> None:
    """Make ``change`` happen after the view opened the invitation (every check passed) and before it accepts."""
    real_open = team_services.invitation_open

    def open_then_change(**kwargs: str) -> Invitation:
        invitation = real_open(**kwargs)
        change()
        return invitation

    monkeypatch.setattr(team_services, "invitation_open", open_then_change)


@pytest.mark.parametrize("signed_in", [False, True], ids=["sign-up", "signed-in"])
def test_a_demotion_between_opening_and_accepting_a_link_wins(
    world: World, monkeypatch: pytest.MonkeyPatch, signed_in: bool
) -> None:
    """The race: the demotion commits after the link was checked, before the form is handled. It bypasses the
    receivers (a bulk UPDATE, as any other writer might), so only the check inside the accepting transaction —
    the creator's owner membership, locked with the membership create — stands between the link and the team."""
    link = invite(world, role="owner")
    second_owner(world)
    path = link.partition("#")[0]
    visitor = world.client_for(world.viewer) if signed_in else Client()
    if signed_in:
        Membership.objects.filter(tenant=world.tenant, user=world.viewer).delete()
    assert open_link(visitor, link).status_code == 200
    between_open_and_accept(
        monkeypatch, lambda: Membership.objects.filter(tenant=world.tenant, user=world.owner).update(role="member")
    )
    refused(visitor.post(path, {} if signed_in else SIGN_UP), NOT_OWNER.format(team=world.tenant.name))
    assert Invitation.objects.get(tenant=world.tenant).withdrawn_at is None  # not withdrawn: the check held
    assert Invitation.objects.get(tenant=world.tenant).used_at is None
    assert not User.objects.filter(username="newbie").exists()
    assert (world.viewer.username in roles(world)) is not signed_in  # the signed-in viewer was taken out first


def test_an_offboarding_that_starts_between_opening_and_accepting_a_link_wins(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = invite(world, role="owner")
    visitor = Client()
    assert open_link(visitor, link).status_code == 200
    between_open_and_accept(
        monkeypatch, lambda: RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)
    )
    refused(visitor.post(link.partition("#")[0], SIGN_UP), CLOSED.format(team=world.tenant.name))
    assert not User.objects.filter(username="newbie").exists()


def test_a_team_being_offboarded_refuses_every_link_even_one_already_open(world: World) -> None:
    link, other = invite(world, role="owner"), invite(world, role="viewer")
    path = link.partition("#")[0]
    visitor = Client()
    assert open_link(visitor, link).status_code == 200
    RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)  # the job's first step
    refused(visitor.post(path, SIGN_UP), CLOSED.format(team=world.tenant.name))
    refused(open_link(Client(), other), CLOSED.format(team=world.tenant.name))
    signed_in = world.client_for(world.viewer)
    Membership.objects.filter(tenant=world.tenant, user=world.viewer).delete()
    refused(open_link(signed_in, other), CLOSED.format(team=world.tenant.name))
    assert not User.objects.filter(username="newbie").exists()
    assert Invitation.objects.filter(tenant=world.tenant, used_at__isnull=False).count() == 0


def test_a_team_being_offboarded_makes_no_link(world: World) -> None:
    RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)  # the owner's page still open
    client = world.client_for(world.owner)
    response = client.post(team_url(world, "invitations/"), {"role": "member", "email": "someone@example.org"})
    assert response.status_code == 200
    assert CLOSED.format(team=world.tenant.name) in text(response)
    assert not Invitation.objects.filter(tenant=world.tenant).exists()  # nothing made, nothing typed kept


def test_offboarding_withdraws_the_teams_invitations_and_its_links_are_refused(
    world: World, other_world: World, media: Path, archive_dir: Path
) -> None:
    link = invite(world, role="owner")
    theirs = invite(other_world, role="member")
    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["result"]["invitations_withdrawn"] == 1
    assert report["result"]["invitations_deleted"] == 1
    assert not Invitation.objects.filter(tenant=world.tenant).exists()  # what the owners noted goes with them
    assert Invitation.objects.get(tenant=other_world.tenant).withdrawn_at is None  # another team's: untouched
    refused(open_link(Client(), link), CLOSED.format(team=world.tenant.name))
    assert open_link(Client(), theirs).status_code == 200


# ------------------------------------------------------------------- the token in no URL, log or Referer


def test_a_new_link_carries_its_token_only_in_the_fragment(world: World) -> None:
    link = invite(world)
    path, _, token = link.partition("#")
    assert path == f"/t/{world.slug}/team/join/"
    assert len(token) > 40
    page = Client().get(path)  # what the server receives: the fragment never leaves the browser
    assert page.status_code == 200
    assert "Open your invitation" in text(page)
    assert 'src="/static/tracker/join.js"' in text(page)
    assert "<script>" not in text(page)  # no inline script: CSP


def test_an_old_link_is_a_redirect_and_no_later_url_holds_its_token(world: World) -> None:
    link = invite(world, role="viewer")
    token = link.partition("#")[2]
    old = f"/t/{world.slug}/team/join/{token}/"  # links sent before: the token in the path
    visitor = Client()
    first = visitor.get(old)
    assert (first.status_code, first["Location"]) == (302, f"/t/{world.slug}/team/join/")
    assert first["Referrer-Policy"] == "same-origin"
    assert "no-store" in first["Cache-Control"]
    received: list[str] = []
    response = visitor.get(first["Location"])
    received.append(response.request["PATH_INFO"] + "?" + response.request.get("QUERY_STRING", ""))
    assert response.status_code == 200
    assert "Create my account and join" in text(response)
    assert response["Referrer-Policy"] == "same-origin"
    assert token not in text(response)  # not in the form's action, the log-in link or anywhere on the page
    response = visitor.post(f"/t/{world.slug}/team/join/", SIGN_UP)
    received.append(response.request["PATH_INFO"])
    assert response.status_code == 302
    received.append(response["Location"])
    assert roles(world)["newbie"] == "viewer"
    assert all(token not in url for url in received), received
    assert token not in json.dumps(dict(visitor.session.items()))  # used: not kept in the session


def test_logs_never_hold_a_token(world: World, caplog: pytest.LogCaptureFixture) -> None:
    link = invite(world)
    token = link.partition("#")[2]
    record = logging.LogRecord(
        "django.server",
        logging.INFO,
        __file__,
        1,
        '"%s" %s %s',
        (f"GET /t/acme/team/join/{token}/ HTTP/1.1", "302", "0"),
        None,
    )
    assert RedactInvitationTokens().filter(record)
    assert token not in record.getMessage()
    assert "/team/join/…/" in record.getMessage()
    with caplog.at_level(logging.INFO):
        Client().get(f"/t/{world.slug}/team/join/{token}x/")
        Client().post(f"/t/{world.slug}/team/join/", {"token": token + "x"}, follow=True)
    assert token not in caplog.text


def test_logging_in_first_keeps_the_link_and_comes_back_to_join(world: World, other_world: World) -> None:
    link = invite(world, role="member")
    path = link.partition("#")[0]
    visitor = Client()
    page = text(open_link(visitor, link))
    assert f'href="/accounts/login/?next={path}"' in page  # back to the clean URL
    response = visitor.post(
        f"/accounts/login/?next={path}", {"username": other_world.member.username, "password": "pw-for-tests"}
    )
    assert (response.status_code, response["Location"]) == (302, path)
    assert f"Join as {other_world.member.username}" in text(visitor.get(path))
    assert visitor.post(path).status_code == 302
    assert roles(world)[other_world.member.username] == "member"


def test_the_team_page_says_how_long_a_link_works(world: World) -> None:
    invite(world)
    client = world.client_for(world.owner)
    client.post(team_url(world, "invitations/"), {"role": "viewer", "email": ""})
    page = text(client.get(team_url(world)))
    assert "It works once, for 7 days, while you are an owner of the team" in page


def test_the_team_page_says_when_an_owners_links_stop_working(world: World) -> None:
    member = second_owner(world)
    mine = membership(world, world.owner)
    response = member.post(team_url(world, f"{mine.pk}/role/"), {"role": "member"})
    name = world.owner.username
    assert flash(response) == [f"{name} is now member. The invitation links {name} made no longer work."]
    response = member.post(team_url(world, f"{membership(world, world.viewer).pk}/remove/"))
    assert flash(response)[-1] == f"{world.viewer.username} was removed from {world.tenant.name}."  # not an owner
    response = member.post(team_url(world, f"{mine.pk}/role/"), {"role": "owner"})
    response = member.post(team_url(world, f"{mine.pk}/remove/"))
    assert flash(response)[-1] == (
        f"{name} was removed from {world.tenant.name}. The invitation links {name} made no longer work."
    )
