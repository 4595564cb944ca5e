"""In Chromium: the issue page's side panels, read by its one selector (no template tag reads), at 1280 and 390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

SIZES: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_issue_page_shows_its_attachments_and_watch_button(page: Page, world: World, size: str) -> None:
    new_issue(world, "Checkout times out for customers paying with a very long card holder name")
    page.set_viewport_size(SIZES[size])
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/1/")
    expect(page.locator("section.attachments")).to_contain_text("No files attached.")
    expect(page.locator("form.watch")).to_contain_text("watching")
    page.get_by_role("button", name="Watch").click()
    expect(page.get_by_role("button", name="Unwatch")).to_be_visible()
    page.wait_for_load_state()
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= SIZES[size]["width"]
    shot(page, f"issue-page-{size}")
