"""Owners invite people who have an account; the person accepts or declines (issue 20, finding 3).

Whatever the owner types, the answer is one and the same, so the team page tells no owner who has
an account; only an exact username or a confirmed e-mail address reaches an account; only
accepting makes a membership, with the role the owner chose.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client

from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, text
from tracker import tasks
from tracker.models import Membership, PersonalInvitation, RetiredSlug
from tracker.services.addresses import address_mark_confirmed
from tracker.services.personal_invitations import ASKED_PER_HOUR, TOO_MANY, personal_invitation_accept

TOKENS = re.compile(r'(name="(?:csrfmiddlewaretoken|idempotency_key)" value=")[^"]*"')
WHEN = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
ASKED_ID = re.compile(r"/team/asked/\d+/")


@pytest.fixture(autouse=True)
def _mail_task_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The invitation e-mail task runs in this process as the worker would (``.apply()``), when queued."""

    def run(*args: Any, kwargs: dict[str, Any], **options: Any) -> None:
        tasks.send_invitation_email.apply(kwargs=kwargs).get()

    monkeypatch.setattr(tasks.send_invitation_email, "apply_async", run)


def account(username: str, email: str = "", *, confirmed: bool = False) -> User:
    user = User.objects.create_user(username, email=email, password="pw-for-tests")
    if confirmed:
        address_mark_confirmed(user=user)
    return user


def ask(world: World, who: str, role: str = "member", client: Client | None = None) -> Any:
    """The owner fills in "Invite someone who has an account" on a freshly rendered team page."""
    client = client or world.client_for(world.owner)
    key = hidden_value(client.get(world.url("team/")), "idempotency_key")
    return client.post(world.url("team/add/"), {"who": who, "role": role, "idempotency_key": key})


def roles(world: World) -> dict[str, str]:
    return dict(Membership.objects.filter(tenant=world.tenant).values_list("user__username", "role"))


def normalised(page: str, who: str) -> str:
    """The page with its tokens, times and request ids blanked, and the words the owner typed as WHO."""
    page = ASKED_ID.sub("/team/asked/ID/", TOKENS.sub(r'\1TOKEN"', page))
    return WHEN.sub("WHEN", page).replace(who, "WHO")


# ------------------------------------------------------------------- one answer


def test_the_answer_is_the_same_whoever_the_owner_names(world: World, mailoutbox: list[Any]) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    account("twin1", "twins@example.org")
    account("twin2", "twins@example.org")
    account("unsure", "unsure@example.org")  # an address never confirmed
    client = world.client_for(world.owner)
    answers = {}
    for who in ("zoe", "zoe2@example.org", "nobody-here", "twins@example.org", "unsure@example.org", "Zoe"):
        PersonalInvitation.objects.filter(tenant=world.tenant).delete()  # each starts from the same team page
        response = ask(world, who, client=client)
        page = client.get(response["Location"]).content.decode()
        answers[who] = (
            response.status_code,
            response["Location"],
            response.content,
            flash(response),
            normalised(page, who),
        )
    first = answers["zoe"]
    assert first[3] == [
        f"If that person has an account with a confirmed e-mail address, they have been invited to join "
        f"{world.tenant.name} as member. They join only when they accept."
    ]
    for who, answer in answers.items():
        assert answer == first, who
    assert set(roles(world)) == {world.owner.username, world.member.username, world.viewer.username}


def test_only_an_exact_username_or_a_confirmed_address_reaches_an_account(world: World, mailoutbox: list[Any]) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    unsure = account("unsure", "unsure@example.org")
    account("twin1", "twins@example.org")
    account("twin2", "twins@example.org")
    for who in ("Zoe", "zoe@", "unsure@example.org", "twins@example.org", "nobody-here"):
        ask(world, who)
    assert not PersonalInvitation.objects.filter(invitee__isnull=False).exists()
    assert mailoutbox == []
    ask(world, "ZOE@example.org", role="viewer")
    invitation = PersonalInvitation.objects.get(invitee__isnull=False)
    assert (invitation.invitee, invitation.role) == (zoe, "viewer")
    assert [m.to for m in mailoutbox] == [["zoe@example.org"]]
    assert "as viewer" in mailoutbox[0].body
    assert world.tenant.name in mailoutbox[0].subject
    ask(world, "unsure")  # the exact username reaches the account; its unconfirmed address gets no e-mail
    assert PersonalInvitation.objects.filter(invitee=unsure).count() == 1
    assert [m.to for m in mailoutbox] == [["zoe@example.org"]]


# ------------------------------------------------------------------- exactly once, changes nothing


def test_the_owners_see_the_same_for_a_members_address_and_nobodys(world: World, mailoutbox: list[Any]) -> None:
    world.member.email = "in-the-team@example.org"
    world.member.save()
    address_mark_confirmed(user=world.member)  # a member's confirmed address: the owners may not learn that
    client = world.client_for(world.owner)
    pages = {}
    for who in ("in-the-team@example.org", "nobody-at-all@example.org"):
        PersonalInvitation.objects.filter(tenant=world.tenant).delete()  # each starts from the same team page
        response = ask(world, who, client=client)
        page = client.get(response["Location"]).content.decode()
        assert who in page  # listed as asked, whatever it reached
        pages[who] = (response.status_code, response["Location"], flash(response), normalised(page, who))
        assert PersonalInvitation.objects.get(tenant=world.tenant, asked_for=who).invitee is None
    assert pages["in-the-team@example.org"] == pages["nobody-at-all@example.org"]
    assert mailoutbox == []  # the member is in the team already, the stranger has no account: nobody is told
    assert Membership.objects.filter(tenant=world.tenant).count() == 3


def test_the_same_form_twice_asks_once(world: World, mailoutbox: list[Any]) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    client = world.client_for(world.owner)
    key = hidden_value(client.get(world.url("team/")), "idempotency_key")
    first = client.post(world.url("team/add/"), {"who": "zoe", "role": "member", "idempotency_key": key})
    again = client.post(world.url("team/add/"), {"who": "zoe", "role": "member", "idempotency_key": key})
    assert (first.status_code, first["Location"]) == (again.status_code, again["Location"])
    assert flash(again) == flash(first) * 2  # the same answer (the first is still queued: no page was shown)
    assert PersonalInvitation.objects.filter(tenant=world.tenant).count() == 1
    assert len(mailoutbox) == 1


def test_asking_again_for_someone_invited_or_in_the_team_invites_nobody(world: World, mailoutbox: list[Any]) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    first = ask(world, "zoe")
    rows = list(PersonalInvitation.objects.values_list("pk", "asked_for", "invitee_id"))
    for who in ("zoe", " ZOE ", world.member.username):
        again = ask(world, who)
        assert (again.status_code, again["Location"]) == (first.status_code, first["Location"])
        assert flash(again) == flash(first)  # ask() shows the team page first: one message each time
    asked_by_email = ask(world, "zoe@example.org")  # other words for the same person: listed, not sent twice
    assert flash(asked_by_email) == flash(first)
    assert (
        list(
            PersonalInvitation.objects.filter(pk__in=[r[0] for r in rows]).values_list("pk", "asked_for", "invitee_id")
        )
        == rows
    )
    assert PersonalInvitation.objects.filter(invitee__isnull=False).count() == 1
    assert PersonalInvitation.objects.get(asked_for=world.member.username).invitee is None  # listed, reaches nobody
    assert len(mailoutbox) == 1
    assert Membership.objects.filter(tenant=world.tenant).count() == 3


# ------------------------------------------------------------------- the person answers


def test_nobody_joins_until_they_accept_and_then_with_the_role_chosen(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe", role="viewer")
    assert "zoe" not in roles(world)
    client = world.client_for(zoe)
    page = text(client.get("/invitations/"))
    assert f"<strong>{world.tenant.name}</strong> invites you as a viewer" in page
    assert 'id="invitations-link">Invitations <strong>1</strong>' in page
    assert client.get(world.url()).status_code == 404  # not in the team yet
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    response = client.post(f"/invitations/{invitation.pk}/", {"answer": "accept"})
    assert (response.status_code, response["Location"]) == (302, f"/t/{world.slug}/")
    assert roles(world)["zoe"] == "viewer"
    assert client.post(f"/invitations/{invitation.pk}/", {"answer": "accept"}).status_code == 404  # once
    assert "invitations-link" not in text(client.get("/invitations/"))


def test_declining_changes_nothing_but_the_invitation(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    client = world.client_for(zoe)
    response = client.post(f"/invitations/{invitation.pk}/", {"answer": "decline"})
    assert flash(response) == [f"You declined the invitation to {world.tenant.name}."]
    assert "zoe" not in roles(world)
    assert client.post(f"/invitations/{invitation.pk}/", {"answer": "accept"}).status_code == 404
    assert "zoe" not in roles(world)
    assert "No invitations are waiting for you." in text(client.get("/invitations/"))


def test_nobody_answers_another_persons_invitation(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    intruder = world.client_for(account("yves"))
    assert intruder.post(f"/invitations/{invitation.pk}/", {"answer": "accept"}).status_code == 404
    assert "yves" not in roles(world)


def test_an_inviter_who_is_no_longer_an_owner_makes_the_invitation_unusable(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    Membership.objects.filter(tenant=world.tenant, user=world.owner).update(role="member")
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    response = world.client_for(zoe).post(f"/invitations/{invitation.pk}/", {"answer": "accept"})
    assert "no longer an owner" in flash(response)[0]
    assert "zoe" not in roles(world)


# ------------------------------------------------------------------- owners only, their own team


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_only_owners_invite(world: World, role: str) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    response = world.client_for(getattr(world, role)).post(world.url("team/add/"), {"who": "zoe", "role": "owner"})
    assert response.status_code == 403
    assert not PersonalInvitation.objects.exists()


def test_an_owner_withdraws_a_request_of_their_team_only(world: World, other_world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    outsider = other_world.client_for(other_world.owner)
    assert outsider.post(other_world.url(f"team/asked/{invitation.pk}/withdraw/")).status_code == 404
    assert outsider.post(world.url(f"team/asked/{invitation.pk}/withdraw/")).status_code == 404
    assert world.client_for(world.member).post(world.url(f"team/asked/{invitation.pk}/withdraw/")).status_code == 403
    assert world.client_for(world.owner).post(world.url(f"team/asked/{invitation.pk}/withdraw/")).status_code == 302
    assert "No invitations are waiting for you." in text(world.client_for(zoe).get("/invitations/"))


def test_nobody_joins_a_team_that_is_closing(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)
    invitation = PersonalInvitation.objects.get(invitee=zoe)
    client = world.client_for(zoe)
    page = text(client.get("/invitations/"))  # a closing team's request is no longer shown, nor counted
    assert world.tenant.name not in page
    assert "No invitations are waiting for you." in page
    assert client.post(f"/invitations/{invitation.pk}/", {"answer": "accept"}).status_code == 404
    with pytest.raises(ValidationError, match="nobody joins it any more"):  # a page opened before: refused
        personal_invitation_accept(invitation=invitation, user=zoe)
    assert "zoe" not in roles(world)


def test_offboarding_deletes_the_teams_requests_and_the_invitee_no_longer_sees_them(
    world: World, other_world: World, media: Path, archive_dir: Path
) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    for who in ("zoe", "someone@example.org", world.member.username):
        ask(world, who)
    ask(other_world, "zoe")
    client = world.client_for(zoe)
    page = text(client.get("/invitations/"))
    assert world.tenant.name in page
    assert 'id="invitations-link">Invitations <strong>2</strong>' in page
    out = io.StringIO()
    call_command("offboard_tenant", world.slug, "--yes", "--json", stdout=out)
    result = json.loads(out.getvalue())["result"]
    assert (result["requests_withdrawn"], result["invitations_deleted"]) == (3, 3)
    assert not PersonalInvitation.objects.filter(tenant=world.tenant).exists()  # what the owners typed is gone
    page = text(client.get("/invitations/"))
    assert world.tenant.name not in page
    assert other_world.tenant.name in page  # another team's request: untouched
    assert 'id="invitations-link">Invitations <strong>1</strong>' in page
    assert PersonalInvitation.objects.get(tenant=other_world.tenant).withdrawn_at is None


def test_a_team_being_offboarded_records_no_request(world: World, mailoutbox: list[Any]) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)  # its page still open
    response = ask(world, "zoe@example.org")
    assert response.status_code == 302
    assert not PersonalInvitation.objects.filter(tenant=world.tenant).exists()  # nothing typed is kept
    assert mailoutbox == []


def test_an_inviter_who_stops_being_an_owner_withdraws_their_requests(world: World) -> None:
    zoe = account("zoe", "zoe@example.org", confirmed=True)
    ask(world, "zoe")
    inviter = Membership.objects.get(tenant=world.tenant, user=world.owner)
    inviter.role = "member"
    inviter.save()  # however it happens (the team page, the admin): the invitation is withdrawn with the right
    assert "No invitations are waiting for you." in text(world.client_for(zoe).get("/invitations/"))
    assert PersonalInvitation.objects.get(invitee=zoe).withdrawn_at is not None


def test_a_team_asks_at_most_so_many_people_an_hour_and_is_told_the_same_whoever_it_names(
    world: World, mailoutbox: list[Any]
) -> None:
    account("zoe", "zoe@example.org", confirmed=True)
    for n in range(ASKED_PER_HOUR):
        ask(world, f"someone-{n}")
    answers = [ask(world, who) for who in ("zoe", "nobody-here")]
    for response in answers:
        assert response.status_code == 200
        assert TOO_MANY.format(team=world.tenant.name, count=ASKED_PER_HOUR) in text(response)
    assert PersonalInvitation.objects.filter(tenant=world.tenant).count() == ASKED_PER_HOUR
    assert mailoutbox == []
