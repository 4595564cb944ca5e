"""In a real browser, at 1280 and 390 px: a person makes an API token (shown once), sees it listed, revokes it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.test import RequestFactory
from playwright.sync_api import Dialog, Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tracker.api.auth import TokenAuth

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/A")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _works(secret: str) -> bool:
    request = RequestFactory().get("/api/v1/x", headers={"Authorization": f"Bearer {secret}"})
    return TokenAuth()(request) is not None


@pytest.mark.parametrize("width", [1280, 390])
def test_a_member_makes_a_token_copies_it_once_and_revokes_it(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.locator("nav.sections").get_by_role("link", name="Team").click()  # where a phone finds it too
    page.locator("#your-tokens").scroll_into_view_if_needed()
    _shot(page, f"tokens-00-team-page-{width}")
    page.locator("#your-tokens").get_by_role("link", name="your API tokens").click()
    expect(page).to_have_url(re.compile(r"/account/tokens/$"))
    expect(page.locator("#tokens-none")).to_have_text("You have no API tokens.")
    form = page.locator("form#token-create")
    expect(form.get_by_label("Team")).to_have_value(world.slug)
    form.get_by_label("Name").fill("Nightly CI")
    form.get_by_label("Scope").select_option("write")
    form.get_by_label("Expires after (days)").fill("30")
    _shot(page, f"tokens-01-form-{width}")
    form.get_by_role("button", name="Make the token").click()
    shown = page.locator("#new-token-value")
    expect(shown).to_have_value(re.compile(r"^trk_[0-9A-Za-z]{36}$"))
    secret = shown.input_value()
    assert _works(secret)
    row = page.locator("#tokens tr[data-list-item]")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Nightly CI")
    expect(row).to_contain_text("Read and write")
    expect(row).to_contain_text("never")
    box = shown.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= width  # the whole token is on the screen, to select and copy
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than the screen
    _shot(page, f"tokens-02-shown-once-{width}")

    page.reload()  # a GET: the secret is not on the page again (the POST's answer was never cached)
    expect(page.locator("#new-token-value")).to_have_count(0)
    assert secret not in page.content()
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    page.locator("#tokens").get_by_role("button", name="Revoke").click()
    expect(page.locator("ul.messages li.success")).to_contain_text("is revoked")
    expect(page.locator("#tokens tr[data-list-item]")).to_contain_text("Revoked")
    expect(page.locator("#tokens").get_by_role("button", name="Revoke")).to_have_count(0)
    assert asked
    assert "Programs using it stop working" in asked[0]
    assert not _works(secret)
    _shot(page, f"tokens-03-revoked-{width}")
