"""In a real browser: bulk edit from a project's list at 1280 and 390 px, with and without JavaScript.

Ticking (a click, a shift-click range, ``x`` on the j/k-highlighted row, "select all"), choosing a
change and Apply come back to the same list with the outcome; the same form sent again says it was
already done. At 390 px a tap on a card's box ticks it instead of opening the issue.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.cache import cache
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from ddbmodels import milestones
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.selectors.milestones import milestones_cache_key

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/A")  # noqa: S108  (copies for the person reviewing the pages)
TITLES = [
    "Login button is grey on Safari",
    "Search box loses focus after typing",
    "Footer links overlap on small screens",
    "Password reset mail is sent twice",
    "Dark mode colours are too faint",
]


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _story(world: World) -> str:
    """Five issues, and an open milestone v1.2 of the project (its id)."""
    v12, _ = milestones.milestone_create(
        tenant=world.slug, project_key=world.project_key, name="v1.2", due=None, created_by=world.member.username
    )
    cache.delete(milestones_cache_key(world.slug, world.project_key))
    for n, title in enumerate(TITLES, 1):
        new_issue(world, title, labels=["ui"] if n % 2 else [], assignee=world.member.username if n < 3 else None)
    return v12.milestone_id


def _box(page: Page, number: int) -> object:
    return page.locator(f"#pick-{number}")


@pytest.mark.parametrize("width", [1280, 390])
def test_ticked_issues_change_together_and_the_list_says_what_happened(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    v12 = _story(world)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url())
    count = page.locator("[data-bulk-count]")
    apply = page.get_by_role("button", name="Apply")
    expect(apply).to_be_disabled()  # the script runs: nothing chosen yet
    expect(page.locator("[data-bulk-all]")).to_be_visible()

    page.locator("#pick-5").click()  # the list is newest first: WEB-5, 4, 3, 2, 1
    page.locator("#pick-3").click(modifiers=["Shift"])  # a range: 5, 4, 3
    expect(count).to_have_text("3 chosen")
    assert page.url.endswith(world.project_url())  # a tap on the box ticks, it does not open the issue
    page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(5):  # j to WEB-1, the last row, then x ticks it
        page.keyboard.press("j")
    page.keyboard.press("x")
    expect(count).to_have_text("4 chosen")
    page.keyboard.press("k")
    page.keyboard.press("x")  # WEB-2 too
    page.keyboard.press("x")  # and off again
    expect(count).to_have_text("4 chosen")
    expect(page.locator("tr.picked")).to_have_count(4)
    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_contain_text(
        "Tick or untick the highlighted issue"
    )
    page.keyboard.press("Escape")
    _shot(page, f"bulk-01-chosen-{width}")

    page.select_option("#bulk-status", "in_progress")
    page.select_option("#bulk-priority", "high")
    page.fill("#bulk-add", "bug")
    page.fill("#bulk-remove", "ui")
    page.select_option("#bulk-milestone", label="v1.2")
    _shot(page, f"bulk-01b-milestone-{width}")
    apply.click()
    expect(page.locator("ul.messages li.success")).to_have_text(
        "Changed WEB-1, WEB-3, WEB-4, WEB-5: now In progress; priority High; labelled bug; no longer labelled ui; "
        "in milestone v1.2."
    )
    assert page.url.endswith(world.project_url())
    for number in (1, 3, 4, 5):
        issue = load(world, number)
        assert issue is not None
        assert (issue.status, issue.priority, issue.labels, issue.milestone) == ("in_progress", "high", {"bug"}, v12)
    two = load(world, 2)
    assert two is not None
    assert (two.status, two.version) == ("open", 1)
    expect(page.locator("table.issues tbody tr")).to_have_count(1)  # the open list: WEB-2 is left
    _shot(page, f"bulk-02-changed-{width}")

    page.goto(world.project_url("?q=is:in_progress"))
    page.locator("[data-bulk-all]").check()
    expect(count).to_have_text("4 chosen")
    page.locator("[data-bulk-all]").uncheck()
    expect(apply).to_be_disabled()
    page.locator("#pick-4").click()
    page.select_option("#bulk-status", "closed")
    page.locator("#pick-1").click()
    apply.click()
    expect(page.locator("ul.messages li.success")).to_have_text("Changed WEB-1, WEB-4: now Closed.")
    _shot(page, f"bulk-03-closed-{width}")


def test_the_same_form_sent_twice_says_it_was_already_done(page: Page, world: World, violations: list[str]) -> None:
    _story(world)
    site_login(page, world.member.username)
    page.goto(world.project_url())
    page.locator("#pick-2").click()
    page.select_option("#bulk-status", "resolved")
    key = page.locator("input[name=idempotency_key]").input_value()
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Changed WEB-2: now Resolved.")
    # The form sent again (back and Apply, a retry after a lost answer): the list as it is now, with the first key.
    page.goto(world.project_url("?q=is:resolved"))
    page.evaluate("(key) => { document.querySelector('input[name=idempotency_key]').value = key; }", key)
    page.locator("#pick-2").check()
    page.select_option("#bulk-status", "resolved")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("ul.messages li.info")).to_have_text(
        "Already done by this form (sent before): WEB-2; nothing changed twice."
    )
    issue = load(world, 2)
    assert issue is not None
    assert (issue.status, issue.version) == ("resolved", 2)
    _shot(page, "bulk-04-again-1280")


def test_without_javascript_the_bar_still_changes_the_ticked_issues(
    browser: Browser, live_server: LiveServer, world: World
) -> None:
    _story(world)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 900}, java_script_enabled=False
    )
    page = context.new_page()
    try:
        site_login(page, world.member.username)
        page.goto(world.project_url())
        expect(page.locator("[data-bulk-all-label]")).to_be_hidden()
        page.locator("#pick-1").check()
        page.locator("#pick-2").check()
        page.select_option("#bulk-assignee", "!nobody")
        page.get_by_role("button", name="Apply").click()
        expect(page.locator("ul.messages li.success")).to_have_text("Changed WEB-1, WEB-2: unassigned.")
        assert [load(world, n).assignee for n in (1, 2)] == [None, None]  # type: ignore[union-attr]
        _shot(page, "bulk-05-nojs-390")
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_label_boxes_suggest_the_teams_labels(page: Page, world: World, violations: list[str], width: int) -> None:
    _story(world)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url())
    page.locator("#bulk-add").press_sequentially("u")
    option = page.get_by_role("option", name="ui")
    expect(option).to_be_visible()
    box, listed = page.locator("#bulk-add").bounding_box(), page.get_by_role("listbox").bounding_box()
    assert box is not None
    assert listed is not None
    assert abs(listed["x"] - box["x"]) < 2  # under its box
    assert 0 <= listed["y"] - (box["y"] + box["height"]) < 8
    assert listed["x"] + listed["width"] <= width  # inside the screen
    _shot(page, f"bulk-06-label-suggested-{width}")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator("#bulk-add")).to_have_value("ui, ")
