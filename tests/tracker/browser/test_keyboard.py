"""Keyboard shortcuts from site.js: / search, c new issue, j/k move, Enter opens; never while typing.

The help (``?``) lists what works on the page it is shown on, and each shortcut it lists is pressed
there: ``/`` ends in a focused search box (the page's own, or the project's or team's list
reached from a page without one), ``c`` in a new-issue form, ``j`` + Enter in the first row's page.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues as ddb_projects
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.orders_helpers import new_order

pytestmark = pytest.mark.browser

CURRENT = "[data-list-item].kbd-current"


def test_j_and_k_move_over_the_projects_and_enter_opens_the_one_highlighted(page: Page, world: World) -> None:
    for key, name in (("API", "Public API"), ("OPS", "Operations")):
        ddb_projects.project_create(tenant=world.slug, key=key, name=name, created_by=world.owner.username)
    site_login(page, world.member.username)
    page.goto(world.url())
    rows = page.locator("[data-list-item]")
    expect(rows).to_have_count(3)  # API, OPS, WEB by key
    expect(page.locator(CURRENT)).to_have_count(0)
    page.keyboard.press("j")
    expect(page.locator(CURRENT)).to_contain_text("API")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")  # stays on the last one
    expect(page.locator(CURRENT)).to_contain_text("WEB")
    page.keyboard.press("k")
    expect(page.locator(CURRENT)).to_contain_text("OPS")
    expect(page.locator(CURRENT)).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/OPS/$"))


def test_slash_focuses_the_search_box_and_c_opens_a_new_issue(page: Page, world: World) -> None:
    new_issue(world, "Something to list")
    site_login(page, world.member.username)
    page.goto(world.project_url())
    search = page.locator("[data-search]")
    if search.count() == 0 or page.locator("a[data-new-issue]").count() == 0:
        pytest.skip("the issue list has no data-search box or data-new-issue link yet (the lead's page)")
    page.keyboard.press("/")
    expect(search).to_be_focused()
    page.keyboard.type("jkc")  # typing in the box is typing: no shortcut fires
    expect(search).to_have_value(re.compile("jkc$"))  # after what was there: the caret goes to the end
    expect(page.locator(CURRENT)).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/p/WEB/$"))
    page.locator("h1").click()  # out of the box
    page.keyboard.press("Control+c")  # a modifier: not a shortcut
    page.wait_for_timeout(200)
    expect(page).to_have_url(re.compile(r"/p/WEB/$"))
    page.keyboard.press("c")
    expect(page).to_have_url(re.compile(r"/p/WEB/new/$"))


def test_c_does_nothing_where_there_is_no_new_issue_link(page: Page, world: World) -> None:
    site_login(page, world.viewer.username)  # viewers are offered no "New issue"
    page.goto(world.project_url())
    expect(page.locator("a[data-new-issue]")).to_have_count(0)
    page.keyboard.press("c")
    page.wait_for_timeout(200)
    expect(page).to_have_url(re.compile(r"/p/WEB/$"))


def test_question_mark_shows_the_shortcuts_and_escape_hides_them(page: Page, world: World) -> None:
    site_login(page, world.member.username)
    page.goto(world.url())
    page.keyboard.press("?")
    help_box = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("Next / previous in the list")
    page.keyboard.press("Escape")
    expect(help_box).to_be_hidden()


HELP = "Keyboard shortcuts"
SEARCH_BOX = "Filter or search issues"


def help_rows(page: Page) -> list[str]:
    """The keys the ``?`` help lists on the current page (and the help hidden again)."""
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name=HELP)
    expect(dialog).to_be_visible()
    keys = dialog.locator("dt").all_inner_texts()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    return keys


def press_out_of_fields(page: Page, key: str) -> None:
    page.locator("h1").click()  # nothing focused that takes typing
    page.keyboard.press(key)


# page name → (address under /t/<team>/, the list "/" lands on, rows it must have: "links", "rows" or "")
PAGES = {
    "projects": ("", "issues/", "links"),
    "project-issues": ("p/WEB/", "p/WEB/", "links"),
    "team-issues": ("issues/", "issues/", "links"),
    "my-issues": ("issues/?q=assignee:@me", "issues/", "links"),
    # the issue page has keys of its own (e, a, l, s, and c for its comment box): test_shortcuts.py
    "new-issue-form": ("p/WEB/new/", "issues/", ""),
    "orders": ("orders/", "issues/", "links"),
    "leaderboard": ("leaderboard/", "issues/", ""),
    "team": ("team/", "issues/", "rows"),  # a member's view of the team: rows without links
    "inbox": ("inbox/", "issues/", ""),
    "board": ("p/WEB/board/", "issues/", ""),
    "labels": ("labels/", "issues/", ""),
    "milestones": ("p/WEB/milestones/", "issues/", ""),
    "saved-views": ("views/", "issues/", ""),
    "notification-settings": ("settings/notifications/", "issues/", ""),
    "go-to": ("go/?q=team", "issues/", "links"),
}
ROWS = "[data-list-item]"


@pytest.mark.parametrize("name", list(PAGES))
def test_every_shortcut_the_help_lists_works_on_the_page(page: Page, world: World, name: str) -> None:
    path, search_list, rows = PAGES[name]
    new_issue(world, "Deploy the new pipeline", assignee=world.member.username)
    new_order(world)
    site_login(page, world.member.username)
    url = world.url(path)
    page.goto(url)
    if rows:
        expect(page.locator(ROWS).first).to_be_visible()
    has_rows = page.locator(ROWS).count() > 0
    has_links = page.locator(f"{ROWS} a[href]").count() > 0
    assert has_links == (rows == "links") or not rows

    ticks = page.locator("[data-bulk-x]").count() > 0  # a project's list: x ticks the highlighted row (bulk edit)
    assert ticks == (name == "project-issues")
    own = ["x"] if ticks else []
    expected = ["/", "c", *own, *(["j / k"] if has_rows else []), *(["Enter"] if has_links else []), "?"]
    assert help_rows(page) == expected

    press_out_of_fields(page, "/")
    box = page.get_by_role("searchbox", name=SEARCH_BOX)
    expect(box).to_be_focused()
    # this page's box, or the list's reached from here (no "#search" left behind in its address)
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/{re.escape(search_list)}(\?[^#]*)?$"))
    page.keyboard.type("deploy")  # typing in the box is typing, whatever the page was
    expect(box).to_have_value(re.compile(r"(^| )deploy$"))

    page.goto(url)
    press_out_of_fields(page, "c")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/new/$"))  # the only project's form
    expect(page.get_by_role("textbox", name="Title")).to_be_visible()

    if has_rows:
        page.goto(url)
        press_out_of_fields(page, "j")
        expect(page.locator(CURRENT)).to_have_count(1)
        expect(page.locator(CURRENT)).to_have_attribute("aria-selected", "true")
        if ticks:
            page.keyboard.press("x")
            expect(page.locator(f"{CURRENT} input[name=n]")).to_be_checked()
    if has_links:
        first = page.locator(ROWS).first.locator("a[href]").first.get_attribute("href")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(re.escape(str(first)) + "$"))


def test_c_from_the_team_pages_asks_which_project_when_there_are_several(page: Page, world: World) -> None:
    ddb_projects.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    site_login(page, world.member.username)
    page.goto(world.url("issues/"))
    press_out_of_fields(page, "c")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/issues/new/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("New issue")
    shot(page, "keyboard-which-project")
    assert help_rows(page) == ["/", "c", "j / k", "Enter", "?"]
    page.keyboard.press("j")  # API, then WEB
    expect(page.locator(CURRENT)).to_contain_text("API")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/API/new/$"))


def test_a_viewer_is_offered_no_c_and_c_does_nothing_on_any_page(page: Page, world: World) -> None:
    new_issue(world, "Deploy the new pipeline")
    site_login(page, world.viewer.username)
    for path in ("", "p/WEB/", "issues/", "p/WEB/1/", "orders/"):
        page.goto(world.url(path))
        assert "c" not in help_rows(page)
        press_out_of_fields(page, "c")
        page.wait_for_timeout(200)
        expect(page).to_have_url(re.compile(rf"/t/{world.slug}/{re.escape(path)}$"))
    assert page.goto(world.url("issues/new/")).status == 403  # type: ignore[union-attr]


def test_slash_on_an_issue_page_goes_to_its_projects_list_with_the_box_focused(page: Page, world: World) -> None:
    new_issue(world, "Deploy the new pipeline")
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    press_out_of_fields(page, "/")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/$"))
    box = page.get_by_role("searchbox", name=SEARCH_BOX)
    expect(box).to_be_focused()
    expect(box).to_have_value("")
    page.keyboard.type("label:bug")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/p/WEB/\?q=label%3Abug$"))
