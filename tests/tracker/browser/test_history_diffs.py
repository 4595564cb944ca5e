"""The history's word diffs in Chromium at 1280 and 390 px: collapsed, opened by a click (no JavaScript needed),
struck and underlined, inside the phone's width, nothing refused by the CSP."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser
SHOTS = Path(tempfile.gettempdir()) / "shots" / "E1"  # kept for looking at (a later run empties SCREENSHOTS)

BEFORE = (
    "Steps:\n\n1. open the cart\n2. press **Pay**\n\nThe button stays grey and nothing happens; "
    "the console says https://payments.example.com/v2/checkout/sessions/cs_test_a1b2c3d4e5f6g7h8 timed out."
)
AFTER = (
    "Steps:\n\n1. open the cart on a phone\n2. press **Pay now**\n\nThe button stays grey and nothing happens; "
    "the console says https://payments.example.com/v2/checkout/sessions/cs_test_a1b2c3d4e5f6g7h8 returned 502."
)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_description_edit_shows_its_word_diff_in_the_history(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    issue = new_issue(world, "Pay button does nothing", description=BEFORE)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url(f"{int(issue.number)}/edit/"))
    page.fill("#id_title", "Pay button does nothing on phones")
    page.fill("#id_description", AFTER)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text("on phones")

    history = page.locator("#history")
    description = history.locator("li", has_text="edited the description")
    diff = description.locator("details.word-diff")
    expect(diff.locator(".diff-text")).to_be_hidden()  # collapsed until asked for
    diff.locator("summary").click()
    expect(diff.locator(".diff-text")).to_be_visible()
    expect(diff.locator("ins.diff-ins").first).to_have_text("added: on a phone")
    expect(diff.locator("ins.diff-ins").nth(1)).to_have_text("added: now")
    expect(diff.locator("del.diff-del")).to_have_text("removed: timed out")
    assert diff.locator("del.diff-del").evaluate("e => getComputedStyle(e).textDecorationLine") == "line-through"
    assert diff.locator("ins.diff-ins").first.evaluate("e => getComputedStyle(e).textDecorationLine") == "underline"
    # the words said to screen readers are not shown
    assert diff.locator(".diff-said").first.evaluate("e => e.getBoundingClientRect().width") <= 1

    title = history.locator("li", has_text="changed the title").locator("details.word-diff")
    title.locator("summary").click()
    expect(title.locator("ins.diff-ins")).to_have_text("added: on phones")

    # nothing wider than the window: the long URL wraps inside the diff
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = diff.locator(".diff-text").bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= width
    description.scroll_into_view_if_needed()
    path = shot(page, f"history-word-diff-{width}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    path.replace(SHOTS / path.name)

    # the team's day shows the same diffs under its lines
    page.goto(world.url("activity/"))
    feed = page.locator("ol.events.feed li", has_text="edited the description").locator("details.word-diff")
    feed.locator("summary").click()
    expect(feed.locator("del.diff-del")).to_have_text("removed: timed out")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    path = shot(page, f"activity-word-diff-{width}")
    path.replace(SHOTS / path.name)
    assert violations == []
