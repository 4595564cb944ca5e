"""The Retired slugs page lists, for an offboarded team, each place besides its data and what was removed there."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tracker.models import RetiredSlug

pytestmark = pytest.mark.browser
WIDTHS = (1280, 390)
PLACES = {
    "job checkpoints": {"shared jobs' checkpoints": 1},
    "schedules": {"tasks scheduled for the team": 0},
    "job results": {
        "task records": {"deleted": 3, "redacted": 1},
        "task records in Redis": {"deleted": 0, "redacted": 0},
    },
    "admin log": {"copies of edited items": 2},
    "redis": {"keys (cache, locks)": 5, "hot-key statistics": 12, "capacity statistics": 6, "job history": 2},
    "files": {"team folders": {"files": 1, "folders": 6}},
}


def test_the_retired_slug_page_says_what_offboarding_removed_in_each_place(page: Page) -> None:
    retired = RetiredSlug.objects.create(
        slug="gone-co", reason=RetiredSlug.Reason.OFFBOARDED, report={"places": PLACES, "finished": True}
    )
    staff_user("ops-retired", superuser=True)
    admin_login(page, "ops-retired")
    page.goto(f"/admin/tracker/retiredslug/{retired.pk}/change/")
    removed = page.locator(".field-removed_elsewhere .removed-place")
    expect(removed).to_have_count(len(PLACES))
    expect(removed.nth(2)).to_have_text(
        "Job results: task records: 3 deleted, 1 redacted; task records in Redis: 0 deleted, 0 redacted"
    )
    expect(removed.nth(4)).to_contain_text("hot-key statistics: 12")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        removed.first.scroll_into_view_if_needed()
        shot(page, f"admin-retired-slug-removed-{width}")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
