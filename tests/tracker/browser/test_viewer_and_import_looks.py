"""In a real browser at 1280 and 390 px: a viewer's note is one small line; an imported issue's history opens with
where it came from. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.import_helpers import jira_import

pytestmark = pytest.mark.browser
WIDTHS = (1280, 390)


def test_a_viewers_note_is_one_small_line_at_both_widths(page: Page, world: World) -> None:
    new_issue(world, "Checkout fails on Safari")
    site_login(page, world.viewer.username)
    for url in (world.url(), world.project_url("1/")):
        page.goto(url)
        note = page.locator(".viewer-note")
        expect(note).to_have_text(f"You're a viewer in {world.tenant.name}: you can read and watch, not change.")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 844})
            box = note.bounding_box()
            assert box is not None
            assert box["height"] <= 48, (url, width)  # one small line, two at most on a phone
            shot(page, f"viewer-note-{url.strip('/').replace('/', '-')}-{width}")


def test_an_imported_issue_opens_its_history_with_its_origin(page: Page, world: World, tmp_path: Path) -> None:
    row = "OPS-7,Pager storm at night,In Progress,High,bob,03/Mar/18 9:30 AM"
    jira_import(world.slug, tmp_path, row, by=world.owner.username)
    site_login(page, world.owner.username)
    page.goto(world.url("p/OPS/7/"))
    first = page.locator("#history ol.events li").last
    expect(first).to_contain_text(f"{world.owner.username} imported the issue from Jira (OPS-7) on ")
    expect(first).to_contain_text("created there 3 Mar 2018 by bob")
    expect(page.locator("#history")).not_to_contain_text("archived")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 844})
        page.locator("#history").scroll_into_view_if_needed()
        shot(page, f"imported-issue-history-{width}")
