"""In a real browser, at 1280 and 390 px: the issue page's own shortcuts (site.js's data-shortcut elements).

e edits, c goes to the comment box (on this page instead of "New issue": the help says so), a / l / s
go to the side forms' assignee, labels and status boxes, whose one-issue changes go through the
project's bulk edit. The help lists exactly what works on the page; nothing fires while typing.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/G")  # noqa: S108  (copies for the person reviewing the pages)
HELP = "Keyboard shortcuts"


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def help_rows(page: Page) -> list[str]:
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name=HELP)
    expect(dialog).to_be_visible()
    rows = [
        f"{key} {what}"
        for key, what in zip(
            dialog.locator("dt").all_inner_texts(), dialog.locator("dd").all_inner_texts(), strict=True
        )
    ]
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    return rows


def out_of_fields(page: Page) -> None:
    page.locator("h1").click()


@pytest.mark.parametrize("width", [1280, 390])
def test_each_shortcut_of_the_issue_page_works_and_none_while_typing(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    new_issue(world, "Checkout button is grey", labels=["ui"])
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    rows = help_rows(page)
    assert [row.split(" ")[0] for row in rows] == ["/", "e", "a", "l", "s", "c", "?"]
    assert "c Comment (the comment box) (on this page; elsewhere c is New issue)" in rows
    page.keyboard.press("?")
    _shot(page, f"issue-shortcuts-{width}")
    page.keyboard.press("Escape")

    comment = page.get_by_role("textbox", name="Add a comment")
    out_of_fields(page)
    page.keyboard.press("c")
    expect(comment).to_be_focused()
    expect(comment).to_have_value("")  # the key itself is not typed
    page.keyboard.type("easy: a l s e c /")  # typing: every key is a letter of the comment
    expect(comment).to_have_value("easy: a l s e c /")
    expect(page).to_have_url(re.compile(r"/p/WEB/1/$"))

    for key, box in (("a", "Assignee"), ("l", "Add labels"), ("s", "Status")):
        out_of_fields(page)
        page.keyboard.press(key)
        expect(page.locator(".quick").get_by_label(box, exact=True)).to_be_focused()
    page.keyboard.type("x")  # in the status box: not a shortcut
    expect(page).to_have_url(re.compile(r"/p/WEB/1/$"))

    out_of_fields(page)
    page.keyboard.press("e")
    expect(page).to_have_url(re.compile(r"/p/WEB/1/edit/$"))


@pytest.mark.parametrize("width", [1280, 390])
def test_the_side_forms_change_one_issue_keyboard_only(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    new_issue(world, "Checkout button is grey", labels=["ui"])
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    out_of_fields(page)
    page.keyboard.press("a")
    page.locator("#quick-assignee").select_option(world.member.username)
    page.keyboard.press("Tab")  # to its button
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/p/WEB/1/$"))
    expect(page.locator(".messages")).to_contain_text(f"Changed WEB-1: assigned to {world.member.username}.")
    expect(page.locator("dl.facts")).to_contain_text(world.member.username)

    out_of_fields(page)
    page.keyboard.press("l")
    page.keyboard.type("bug, perf")
    page.keyboard.press("Enter")  # sends the labels form
    expect(page.locator(".messages")).to_contain_text("Changed WEB-1: labelled bug, perf.")  # the new page's

    out_of_fields(page)
    page.keyboard.press("s")
    page.locator("#quick-status").select_option("in_progress")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("Changed WEB-1: now In progress.")
    _shot(page, f"issue-side-forms-{width}")
    issue = load(world, 1)
    assert issue is not None
    assert (issue.assignee, issue.status, set(issue.labels or ())) == (
        world.member.username,
        "in_progress",
        {"bug", "perf", "ui"},
    )


def test_a_viewer_has_none_of_the_issue_pages_keys(page: Page, world: World) -> None:
    new_issue(world, "Checkout button is grey")
    site_login(page, world.viewer.username)
    page.goto(world.project_url("1/"))
    assert [row.split(" ")[0] for row in help_rows(page)] == ["/", "?"]
    for key in "eals":
        out_of_fields(page)
        page.keyboard.press(key)
        page.wait_for_timeout(100)
        expect(page).to_have_url(re.compile(r"/p/WEB/1/$"))
    expect(page.locator(".quick")).to_have_count(0)
