"""In a real browser: a session that ends while a page is open (signed out in another tab, or expired).

The board's moves, the Write / Preview tabs and the palette ask the server with fetch(); signed out, the
server's answer is the login page (a redirect, followed). R2-6: that page is never shown as a preview (a
second login form inside the issue's form) nor taken for a move that "may or may not" have been made: each
says the person is signed out, that nothing was done, and keeps what was typed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/E")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _sign_out_elsewhere(page: Page) -> None:
    """The session ends (signed out in another tab); the page and its CSRF cookie stay as they were."""
    page.context.clear_cookies(name="sessionid")


@pytest.mark.parametrize("width", [1280, 390])
def test_signed_out_the_preview_says_so_and_keeps_the_text(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    new_issue(world, "Pages are slow")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    form = page.locator("form.comment-form")
    form.locator("textarea[name=body]").fill("**Steps** to see it")
    _sign_out_elsewhere(page)
    form.get_by_role("tab", name="Preview").click()
    pane = form.get_by_role("tabpanel")
    expect(pane).to_contain_text("You are signed out, so no preview was made.")
    expect(form.locator("input[name=password]")).to_have_count(0)  # no login form inside the comment's form
    link = pane.get_by_role("link", name="sign in again")
    expect(link).to_have_attribute("href", f"/accounts/login/?next=%2Ft%2F{world.slug}%2Fp%2FWEB%2F1%2F")
    expect(link).to_have_attribute("target", "_blank")  # this page, and its text, stay open
    _shot(page, f"signed-out-preview-{width}")
    form.get_by_role("tab", name="Write").click()
    expect(form.locator("textarea[name=body]")).to_have_value("**Steps** to see it")


@pytest.mark.parametrize("width", [1280, 390])
def test_signed_out_a_board_move_says_nothing_was_moved(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    new_issue(world, "Login button is grey")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("board/"))
    expect(page.locator("#column-open #card-1")).to_be_visible()
    _sign_out_elsewhere(page)
    page.get_by_role("button", name="Move WEB-1 to In progress").click()
    status = page.locator("#board-status")
    expect(status).to_have_text("You are signed out: WEB-1 was not moved. Sign in again, then move it again.")
    expect(page.locator("#column-open #card-1")).to_be_visible()  # back where it is
    expect(status.get_by_role("link", name="Sign in again")).to_have_attribute(
        "href", f"/accounts/login/?next=%2Ft%2F{world.slug}%2Fp%2FWEB%2Fboard%2F"
    )
    _shot(page, f"signed-out-board-{width}")
    assert load(world, 1).status == "open"


def test_signed_out_the_palette_says_so(page: Page, world: World, violations: list[str]) -> None:
    site_login(page, world.member.username)
    page.goto(world.url("leaderboard/"))
    _sign_out_elsewhere(page)
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    dialog = page.locator("dialog.palette")
    expect(dialog.get_by_role("status")).to_have_text("You are signed out: sign in again to look things up.")
    expect(dialog.get_by_role("option")).to_have_count(0)
