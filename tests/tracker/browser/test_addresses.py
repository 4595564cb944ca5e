"""In a real browser, at 1280 and 390 px: a person changes their e-mail address and confirms it by its link.

The link's token is in its fragment: the page's script posts it, and no request the browser makes
(page, redirect, static file) carries it in its URL.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import PASSWORD, shot, site_login
from tests.tracker.conftest import World
from tracker.services.addresses import address_confirmed

pytestmark = pytest.mark.browser

LINK = re.compile(r"https?://[^/\s]+(/accounts/email/confirm/)#(\S+)")
SHOTS = Path("/tmp/shots/S1")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_person_changes_their_address_and_confirms_it(
    page: Page, world: World, mailoutbox: list[Any], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.locator("nav.sections").get_by_role("link", name="Team").click()  # where a phone finds it too
    page.locator("#your-address").get_by_role("link", name="your e-mail address").click()
    expect(page).to_have_url(re.compile(r"/accounts/email/$"))
    expect(page.locator("#address-state")).to_contain_text("no e-mail address")
    form = page.locator("form#address-change")
    form.get_by_label("New e-mail address").fill("mia@example.org")
    form.get_by_label("Your password").fill(PASSWORD)
    form.get_by_role("button", name="Change and send a confirmation link").click()
    expect(page.locator("#address-state")).to_have_text("mia@example.org · not confirmed yet")
    _shot(page, f"address-01-unconfirmed-{width}")
    match = LINK.search(mailoutbox[-1].body)
    assert match, mailoutbox[-1].body
    path, token = match.groups()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{path}#{token}")  # the script posts the fragment; the page comes back at the clean URL
    expect(page.get_by_role("button", name="Confirm mia@example.org")).to_be_visible()
    expect(page.locator("h1")).to_have_text("Confirm your e-mail address")
    expect(page).to_have_url(re.compile(r"/accounts/email/confirm/$"))  # nothing after it: no token, no #
    _shot(page, f"address-02-confirm-{width}")
    page.get_by_role("button", name="Confirm mia@example.org").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Thank you: mia@example.org is confirmed.")
    expect(page.locator("#address-state")).to_have_text("mia@example.org · confirmed")
    _shot(page, f"address-03-confirmed-{width}")
    assert any(url.endswith(path) for url in requested), requested
    assert not [url for url in requested if token in url or "token" in url], requested
    world.member.refresh_from_db()
    assert address_confirmed(user=world.member) == "mia@example.org"


@pytest.mark.parametrize("width", [1280, 390])
def test_without_the_link_a_person_pastes_its_code(page: Page, world: World, width: int) -> None:
    world.member.email = "mia@example.org"
    world.member.save()
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto("/accounts/email/confirm/")  # opened without its code (or without JavaScript): a field for it
    expect(page.locator("h1")).to_have_text("Confirm your e-mail address")
    expect(page.get_by_label("Confirmation code")).to_be_visible()
    _shot(page, f"address-04-paste-{width}")
    page.get_by_label("Confirmation code").fill("not-a-code")
    page.get_by_role("button", name="Open the confirmation").click()
    page.get_by_role("button", name="Confirm mia@example.org").click()  # nothing is checked before this
    expect(page.locator("h1")).to_have_text("This link cannot be used")
    expect(page.locator("p.refusal")).to_contain_text("not valid")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_signed_out_person_opens_the_link_signs_in_and_confirms(
    page: Page, world: World, mailoutbox: list[Any], width: int
) -> None:
    from tracker.services.addresses import address_change

    address_change(user=world.member, email="mia@example.org")
    match = LINK.search(mailoutbox[-1].body)
    assert match, mailoutbox[-1].body
    path, token = match.groups()
    page.set_viewport_size({"width": width, "height": 900})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{path}#{token}")  # signed out: the code is kept in the session, the login page comes next
    expect(page.locator("input[name=username]")).to_be_visible()
    page.fill("input[name=username]", world.member.username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Confirm mia@example.org").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Thank you: mia@example.org is confirmed.")
    _shot(page, f"address-05-signed-in-and-confirmed-{width}")
    assert not [url for url in requested if token in url or "token" in url], requested
    world.member.refresh_from_db()
    assert address_confirmed(user=world.member) == "mia@example.org"
