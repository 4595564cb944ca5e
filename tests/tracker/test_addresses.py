"""E-mail addresses are confirmed by a signed, expiring, one-use link before anything is matched or sent (finding 3).

Until then an address is not matched when owners invite, and receives no notification and no
password reset; whoever signs up first with someone else's address gets nothing meant for it.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client

from tests.tracker.conftest import World
from tests.tracker.helpers import flash, text
from tests.tracker.test_team import invite, open_link
from tracker.log_filters import RedactInvitationTokens
from tracker.models import ConfirmedEmail
from tracker.services.addresses import (
    CONFIRM_MAX_AGE,
    address_confirmed,
    address_mark_confirmed,
    confirmation_token,
    confirmed_users,
)
from tracker.services.inbox import team_addresses

LINK = re.compile(r"http://[^/\s]+(/accounts/email/confirm/\S*)")
CONFIRM = "/accounts/email/confirm/"


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def change_address(client: Client, email: str) -> Any:
    return client.post("/accounts/email/", {"email": email, "password": "pw-for-tests"})


def link_in(message: Any) -> str:
    match = LINK.search(message.body)
    assert match, message.body
    return match.group(1)


def token_of(link: str) -> str:
    return link.split("#", 1)[1]


def test_a_changed_address_is_confirmed_by_its_link_once(world: World, mailoutbox: list[Any]) -> None:
    client = signed_in(world.member)
    response = change_address(client, "Mia@Example.org")
    assert response.status_code == 302
    world.member.refresh_from_db()
    assert world.member.email == "Mia@Example.org"
    assert address_confirmed(user=world.member) == ""
    assert [m.to for m in mailoutbox] == [["Mia@Example.org"]]
    link = link_in(mailoutbox[0])
    assert link.partition("#")[0] == CONFIRM  # the token is in the fragment: never sent to the server
    first = client.get(CONFIRM)  # what the browser asks for: a page whose script posts the fragment
    assert first.status_code == 200
    assert 'name="code"' in first.content.decode()
    assert "tracker/confirm.js" in first.content.decode()
    opened = client.post(CONFIRM, {"code": token_of(link)})  # the token moves into the session
    assert (opened.status_code, opened["Location"]) == (302, CONFIRM)
    page = client.get(opened["Location"])  # opening the link changes nothing: a page with one button
    assert page.status_code == 200
    assert "Confirm Mia@Example.org" in text(page)
    assert address_confirmed(user=world.member) == ""
    done = client.post("/accounts/email/confirm/", {"token": token_of(link)})
    assert flash(done) == ["Thank you: mia@example.org is confirmed."]
    assert address_confirmed(user=world.member) == "mia@example.org"
    again = client.post("/accounts/email/confirm/", {"token": token_of(link)})
    assert again.status_code == 410
    assert "This confirmation link was already used." in text(again)


def test_signing_up_through_an_invitation_link_sends_a_confirmation(world: World, mailoutbox: list[Any]) -> None:
    link = invite(world, role="viewer", email="nia@example.org")
    visitor = Client()
    path = link.partition("#")[0]
    assert open_link(visitor, link).status_code == 200
    data = {
        "username": "nia",
        "email": "nia@example.org",
        "password1": "a-long-pass-417",
        "password2": "a-long-pass-417",
    }
    assert visitor.post(path, data).status_code == 302
    nia = User.objects.get(username="nia")
    assert address_confirmed(user=nia) == ""  # not until the link is followed
    assert [m.to for m in mailoutbox] == [["nia@example.org"]]
    visitor.post("/accounts/email/confirm/", {"token": token_of(link_in(mailoutbox[0]))})
    assert address_confirmed(user=nia) == "nia@example.org"


def test_a_confirmation_link_expires(world: World, mailoutbox: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    client = signed_in(world.member)
    change_address(client, "mia@example.org")
    token = token_of(link_in(mailoutbox[0]))
    later = time.time() + CONFIRM_MAX_AGE.total_seconds() + 5
    monkeypatch.setattr(signing.time, "time", lambda: later)
    response = client.post("/accounts/email/confirm/", {"token": token})
    assert response.status_code == 410
    assert "This confirmation link has expired." in text(response)
    assert address_confirmed(user=world.member) == ""


def test_a_confirmation_link_works_only_for_its_own_account(world: World, mailoutbox: list[Any]) -> None:
    change_address(signed_in(world.member), "mia@example.org")
    token = token_of(link_in(mailoutbox[0]))
    other = signed_in(world.viewer)
    response = other.post("/accounts/email/confirm/", {"token": token})
    assert response.status_code == 410
    assert not ConfirmedEmail.objects.exists()
    tampered = signed_in(world.member).post("/accounts/email/confirm/", {"token": token[:-2] + "xx"})
    assert tampered.status_code == 410
    assert not ConfirmedEmail.objects.exists()


def test_a_link_for_an_address_given_up_no_longer_confirms(world: World, mailoutbox: list[Any]) -> None:
    client = signed_in(world.member)
    change_address(client, "old@example.org")
    old = token_of(link_in(mailoutbox[0]))
    change_address(client, "new@example.org")
    assert client.post("/accounts/email/confirm/", {"token": old}).status_code == 410
    assert address_confirmed(user=world.member) == ""


def test_changing_the_address_needs_the_password(world: World, mailoutbox: list[Any]) -> None:
    response = signed_in(world.member).post("/accounts/email/", {"email": "x@example.org", "password": "wrong"})
    assert response.status_code == 400
    world.member.refresh_from_db()
    assert world.member.email == ""
    assert mailoutbox == []


def test_whoever_signs_up_first_with_an_address_gets_nothing_meant_for_it(world: World, mailoutbox: list[Any]) -> None:
    squatter = User.objects.create_user("squatter", email="bea@example.org", password="pw-for-tests")
    bea = User.objects.create_user("bea", email="bea@example.org", password="pw-for-tests")
    address_mark_confirmed(user=bea)
    # The squatter's link (asked for now) cannot confirm an address another account confirmed.
    client = signed_in(squatter)
    client.post("/accounts/email/", {"action": "resend"})
    assert [m.to for m in mailoutbox] == [["bea@example.org"]]  # sent to the address: only its owner reads it
    refused = client.post("/accounts/email/confirm/", {"token": token_of(link_in(mailoutbox[0]))})
    assert refused.status_code == 410
    assert "already confirmed for another account" in text(refused)
    assert address_confirmed(user=squatter) == ""


def test_an_unconfirmed_address_gets_no_password_reset(world: World, mailoutbox: list[Any]) -> None:
    User.objects.create_user("una", email="una@example.org", password="pw-for-tests")
    response = Client(REMOTE_ADDR="198.51.100.77").post("/accounts/password_reset/", {"email": "una@example.org"})
    assert response.status_code == 302  # the same page as for any address
    assert mailoutbox == []


def test_an_unconfirmed_address_gets_no_notification_email(world: World) -> None:
    for user, email in ((world.owner, "o@example.org"), (world.member, "m@example.org")):
        user.email = email
        user.save()
    address_mark_confirmed(user=world.owner)
    addresses = team_addresses(world.slug)
    assert addresses[world.owner.username] == "o@example.org"
    assert addresses[world.member.username] == ""  # not mailed (delivery mails only non-empty addresses)
    world.owner.email = "changed@example.org"  # changed elsewhere (the admin): unconfirmed again
    world.owner.save()
    assert team_addresses(world.slug)[world.owner.username] == ""


def test_the_link_in_the_email_has_no_token_in_its_path_or_query(world: World, mailoutbox: list[Any]) -> None:
    change_address(signed_in(world.member), "mia@example.org")
    link = link_in(mailoutbox[0])
    path, _, fragment = link.partition("#")
    assert path == CONFIRM
    assert fragment
    assert "token" not in path


def test_an_old_link_with_the_token_in_its_query_still_confirms(world: World, mailoutbox: list[Any]) -> None:
    client = signed_in(world.member)
    change_address(client, "mia@example.org")
    token = token_of(link_in(mailoutbox[0]))
    opened = client.get(f"{CONFIRM}?token={token}")  # a link sent before the token moved to the fragment
    assert (opened.status_code, opened["Location"]) == (302, CONFIRM)
    assert "Confirm mia@example.org" in text(client.get(CONFIRM))
    done = client.post(CONFIRM, {})
    assert flash(done) == ["Thank you: mia@example.org is confirmed."]
    world.member.refresh_from_db()
    assert address_confirmed(user=world.member) == "mia@example.org"
    assert token not in json.dumps(dict(client.session.items()))  # used: not kept in the session


def test_a_pasted_link_or_code_opens_the_confirmation_and_a_signed_out_person_signs_in_first(
    world: World, mailoutbox: list[Any]
) -> None:
    change_address(signed_in(world.member), "mia@example.org")
    link = "http://testserver" + link_in(mailoutbox[0])
    visitor = Client()
    assert 'name="code"' in visitor.get(CONFIRM).content.decode()  # signed out: the page takes the code first
    assert visitor.post(CONFIRM, {"code": "  "}).status_code == 400  # nothing pasted: asked again
    moved = visitor.post(CONFIRM, {"code": link})  # the whole link pasted: its fragment is the code
    assert (moved.status_code, moved["Location"]) == (302, CONFIRM)
    to_login = visitor.get(CONFIRM)
    assert to_login.status_code == 302
    assert token_of(link) not in to_login["Location"]
    assert to_login["Location"].startswith("/accounts/login/")
    visitor.force_login(world.member)  # signing in keeps the session's data
    done = visitor.post(CONFIRM, {})
    assert flash(done) == ["Thank you: mia@example.org is confirmed."]


def test_logs_never_hold_a_confirmation_token(world: World, mailoutbox: list[Any]) -> None:
    change_address(signed_in(world.member), "mia@example.org")
    token = token_of(link_in(mailoutbox[0]))
    record = logging.LogRecord(
        "django.server",
        logging.INFO,
        __file__,
        1,
        '"%s" %s %s',
        (f"GET {CONFIRM}?token={token} HTTP/1.1", "302", "0"),
        None,
    )
    assert RedactInvitationTokens().filter(record)
    assert token not in record.getMessage()
    assert f"{CONFIRM}?token=… HTTP/1.1" in record.getMessage()


def test_a_changed_address_frees_the_old_one_for_whoever_owns_it(world: World, mailoutbox: list[Any]) -> None:
    alice, bob = world.member, world.viewer
    alice_client = signed_in(alice)
    change_address(alice_client, "a@x.org")
    alice_client.post(CONFIRM, {"token": token_of(link_in(mailoutbox[-1]))})
    alice.refresh_from_db()
    assert address_confirmed(user=alice) == "a@x.org"
    change_address(alice_client, "b@x.org")  # the account page
    alice.refresh_from_db()
    assert not ConfirmedEmail.objects.filter(email="a@x.org").exists()  # the old confirmation is gone
    assert confirmed_users(email="a@x.org") == []
    assert address_confirmed(user=alice) == ""
    bob_client = signed_in(bob)
    change_address(bob_client, "a@x.org")
    done = bob_client.post(CONFIRM, {"token": token_of(link_in(mailoutbox[-1]))})
    assert flash(done)[-1] == "Thank you: a@x.org is confirmed."
    assert confirmed_users(email="a@x.org") == [bob]
    alice.email = "A@x.org"  # alice takes the old address back (the admin): her old confirmation matches nothing
    alice.save()
    assert address_confirmed(user=alice) == ""
    assert confirmed_users(email="a@x.org") == [bob]


def test_an_address_changed_in_the_admin_or_a_script_loses_its_confirmation(world: World) -> None:
    user = world.member
    user.email = "a@x.org"
    user.save()
    address_mark_confirmed(user=user)
    user.last_login = user.date_joined
    user.save(update_fields=["last_login"])  # a save that cannot change the address keeps it
    assert address_confirmed(user=user) == "a@x.org"
    user.email = "b@x.org"
    user.save()  # what the admin's change form and a script do
    assert not ConfirmedEmail.objects.filter(user_id=user.pk).exists()
    user.email = "a@x.org"
    user.save()
    assert address_confirmed(user=user) == ""  # confirmed again only by a new link


def test_an_address_changed_by_a_bulk_update_can_still_be_confirmed_by_its_owner(
    world: World, mailoutbox: list[Any]
) -> None:
    alice, bob = world.member, world.viewer
    alice.email = "a@x.org"
    alice.save()
    address_mark_confirmed(user=alice)
    User.objects.filter(pk=alice.pk).update(email="b@x.org")  # no save(): no signal
    assert confirmed_users(email="a@x.org") == []  # counts only for the account's current address
    bob.email = "a@x.org"
    bob.save()
    done = signed_in(bob).post(CONFIRM, {"token": confirmation_token(user=bob)})
    assert flash(done) == ["Thank you: a@x.org is confirmed."]
    assert confirmed_users(email="a@x.org") == [bob]
