"""A bad page link (expired, tampered, another list's) in a browser: the 400 says why and leads to the first page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tracker import cursors

pytestmark = pytest.mark.browser

SIZES: list[ViewportSize] = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_bad_page_link_says_why_and_leads_to_the_first_page(page: Page, world: World, size: ViewportSize) -> None:
    page.set_viewport_size(size)
    site_login(page, world.member.username)
    page.goto(f"{world.project_url()}?status=open&cursor=not-a-page-link")
    expect(page.get_by_role("heading", name="That did not work")).to_be_visible()
    expect(page.get_by_text(cursors.INVALID)).to_be_visible()
    back = page.get_by_role("link", name="Back to the first page")
    expect(back).to_be_visible()
    shot(page, f"bad-page-link-{size['width']}")
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]  # nothing wider than the phone
    back.click()
    expect(page).to_have_url(f"{page.url.split('/t/')[0]}{world.project_url()}?status=open")
