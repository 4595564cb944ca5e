"""E-mail addresses are confirmed by a signed, expiring, one-use link before anything is matched or sent (finding 3).

Until then an address is not matched when owners invite, and receives no notification and no
password reset; whoever signs up first with someone else's address gets nothing meant for it.
"""

from __future__ import annotations

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
from tracker.models import ConfirmedEmail
from tracker.services.addresses import CONFIRM_MAX_AGE, address_confirmed, address_mark_confirmed
from tracker.services.inbox import team_addresses

LINK = re.compile(r"http://[^/\s]+(/accounts/email/confirm/\?token=\S+)")


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
    return link.split("token=", 1)[1]


def test_a_changed_address_is_confirmed_by_its_link_once(world: World, mailoutbox: list[Any]) -> None:
    client = signed_in(world.member)
    response = change_address(client, "Mia@Example.org")
    assert response.status_code == 302
    world.member.refresh_from_db()
    assert world.member.email == "Mia@Example.org"
    assert address_confirmed(user=world.member) == ""
    assert [m.to for m in mailoutbox] == [["Mia@Example.org"]]
    link = link_in(mailoutbox[0])
    opened = client.get(link)  # the token moves into the session; the page is the clean URL
    assert (opened.status_code, opened["Location"]) == (302, "/accounts/email/confirm/")
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
