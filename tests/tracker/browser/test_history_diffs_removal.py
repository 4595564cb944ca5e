"""Removing a description edit's words from the history, in Chromium at 1280 and 390 px: the button is inside
the opened diff beside what it cannot reach (e-mails already sent), asks before it is sent, and the line then says
who removed the change; nothing refused by the CSP."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser
SHOTS = Path(tempfile.gettempdir()) / "shots" / "F"

BEFORE = "Deploy fails. Log in with password hunter2-prod-only and run the job again. It times out after 30 s."
AFTER = "Deploy fails. Log in and run the job again. It times out after 30 s."


@pytest.mark.parametrize("width", [1280, 390])
def test_the_editor_removes_a_pasted_secret_from_the_history(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    issue = new_issue(world, "Deploy fails", description=BEFORE)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url(f"{int(issue.number)}/edit/"))
    page.fill("#id_description", AFTER)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#history")).to_contain_text("edited the description")

    line = page.locator("#history li", has_text="edited the description")
    remove = line.get_by_role("button", name="Remove this change from the history")
    expect(remove).to_be_hidden()  # inside the diff, collapsed until asked for
    line.locator("summary").click()
    expect(line.locator("del.diff-del")).to_contain_text("hunter2-prod-only")
    expect(remove).to_be_visible()
    note = line.locator(".diff-remove-note")  # beside the button: what the removal cannot reach
    expect(note).to_have_text(
        "Its notifications stop quoting the new words too, and later edits that still showed them lose their change "
        "as well. E-mails already sent keep them."
    )
    expect(note).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    line.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = shot(page, f"history-remove-before-{width}")
    path.replace(SHOTS / path.name)

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    remove.click()  # dismissed: nothing is sent
    expect(line.locator("del.diff-del")).to_contain_text("hunter2-prod-only")
    assert asked
    assert asked[0].startswith("Remove the words of this edit")
    page.once("dialog", lambda dialog: dialog.accept())
    remove.click()
    expect(page.locator("#history")).to_contain_text(
        f"edited the description (the change was removed from the history by {world.member.username})"
    )
    expect(page.get_by_text("The change was removed from the history.")).to_be_visible()
    assert "hunter2-prod-only" not in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    path = shot(page, f"history-remove-after-{width}")
    path.replace(SHOTS / path.name)
    assert violations == []
