"""In a real browser, at 1280 and 390 px: a person saves a filtered list as a view, finds it in the header's
Views menu (a <details>: no script needed), shares it, a teammate opens it; notification settings are changed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/F")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _log_out(page: Page) -> None:
    page.locator("header.top").get_by_role("button", name="Log out").click()


@pytest.mark.parametrize("width", [1280, 390])
def test_save_a_view_share_it_and_a_teammate_opens_it_from_the_menu(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    for title, labels in (("Login fails", ["bug"]), ("Add dark mode", ["feature"]), ("Crash on save", ["bug"])):
        issues.issue_create(
            tenant=world.slug, project_key="WEB", title=title, reporter=world.member.username, labels=labels
        )
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/")
    page.locator("#issue-q").fill("is:open label:bug")
    page.locator("#issue-q").press("Enter")
    page.get_by_role("link", name="Save this view").click()
    expect(page.locator("h1")).to_have_text("Save this view")
    expect(page.get_by_label("Query")).to_have_value("is:open label:bug")
    page.get_by_label("Name").fill("Open bugs")
    _shot(page, f"views-01-save-{width}")
    page.get_by_role("button", name="Save view").click()
    expect(page.locator("ul.messages li.success")).to_contain_text("Saved the view “Open bugs”")
    expect(page).to_have_url(re.compile(r"/p/WEB/\?q=is%3Aopen\+label%3Abug$"))

    menu = page.locator("details.views-menu")
    menu.locator("summary").click()
    expect(menu.get_by_role("link", name="Open bugs")).to_be_visible()
    _shot(page, f"views-02-menu-{width}")
    menu.get_by_role("link", name="Manage views").click()
    expect(page.locator("h1")).to_have_text("Saved views")
    page.get_by_role("button", name="Share with the team").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Shared “Open bugs” with the team.")
    _shot(page, f"views-03-list-{width}")

    _log_out(page)
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/p/WEB/")
    menu = page.locator("details.views-menu")
    menu.locator("summary").click()
    expect(menu.locator(".menu-heading").last).to_have_text("Shared with the team")
    menu.get_by_role("link", name="Open bugs").click()
    expect(page.locator("#issue-q")).to_have_value("is:open label:bug")
    expect(page.locator("table.issues tbody tr")).to_have_count(2)

    page.goto(f"/t/{world.slug}/views/")  # an owner takes a teammate's shared view out of the team's menu
    take_out = page.get_by_role("button", name="Take it out of the team’s menu")
    expect(take_out).to_be_visible()
    _shot(page, f"views-05-owner-list-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    take_out.click()
    expect(page.locator("ul.messages li.success")).to_contain_text("is no longer in the team’s menu; they keep it.")
    expect(page.get_by_text("Nobody has shared a view")).to_be_visible()

    page.goto(f"/t/{world.slug}/settings/notifications/")
    page.get_by_label("Watching: all of that").check()
    page.get_by_label("E-mail me as well").uncheck()
    expect(page.locator(".notify-settings .help")).to_contain_text("at most one e-mail per issue every 5 minutes")
    _shot(page, f"views-04-notifications-{width}")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Saved your notification settings.")
    expect(page.get_by_label("Watching: all of that")).to_be_checked()
    expect(page.get_by_label("E-mail me as well")).not_to_be_checked()
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than the screen
