"""In a real browser, at 1280 and 390 px: a person changes their e-mail address and confirms it by its link."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import PASSWORD, shot, site_login
from tests.tracker.conftest import World
from tracker.services.addresses import address_confirmed

pytestmark = pytest.mark.browser

LINK = re.compile(r"https?://[^/\s]+(/accounts/email/confirm/\?token=\S+)")


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
    shot(page, f"address-01-unconfirmed-{width}")
    match = LINK.search(mailoutbox[-1].body)
    assert match, mailoutbox[-1].body
    page.goto(match.group(1))
    expect(page.locator("h1")).to_have_text("Confirm your e-mail address")
    shot(page, f"address-02-confirm-{width}")
    page.get_by_role("button", name="Confirm mia@example.org").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Thank you: mia@example.org is confirmed.")
    expect(page.locator("#address-state")).to_have_text("mia@example.org · confirmed")
    shot(page, f"address-03-confirmed-{width}")
    world.member.refresh_from_db()
    assert address_confirmed(user=world.member) == "mia@example.org"
