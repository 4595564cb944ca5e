"""In a real browser, at 1280 and 390 px: the command palette, keyboard only, and "Go to" without JavaScript.

Ctrl-K opens a <dialog>; typing asks /t/<team>/go/?format=json; ↓ / ↑ move, Enter opens, Escape closes
and gives the focus back. ⌘K (Meta) opens it too. Without JavaScript the header's box leads to the same
results as a page. No Content-Security-Policy report on any page.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from ddbmodels import issues as ddb_issues
from tests.tracker.browser.helpers import PASSWORD, shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/G")  # noqa: S108  (copies for the person reviewing the pages)
DIALOG = "dialog.palette"


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_palette_keyboard_only(page: Page, world: World, violations: list[str], width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    ddb_issues.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    new_issue(world, "Checkout button is grey")
    site_login(page, world.member.username)
    page.goto(world.url("leaderboard/"))
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    dialog = page.locator(DIALOG)
    expect(dialog).to_be_visible()
    box = dialog.get_by_role("combobox")
    expect(box).to_be_focused()
    options = dialog.get_by_role("option")
    expect(options.first).to_contain_text("API Public API")  # before typing: projects, then pages
    _shot(page, f"palette-open-{width}")

    page.keyboard.type("web-1")
    expect(options).to_have_count(1)
    expect(options.first).to_contain_text("WEB-1 Checkout button is grey")
    expect(options.first).to_have_attribute("aria-selected", "true")
    _shot(page, f"palette-issue-{width}")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/1/$"))
    page.wait_for_load_state()  # the address changes before the new page's palette.js has run (a loaded machine)

    page.keyboard.press("Control+k")
    expect(dialog).to_be_visible()
    page.keyboard.type("inbox")
    expect(options.first).to_contain_text("Inbox")
    page.keyboard.press("ArrowDown")  # the next: "Search issues for “inbox”"
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(options.first).not_to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/inbox/$"))
    page.wait_for_load_state()

    page.locator("h1").click()
    page.keyboard.press("Meta+k")  # ⌘K
    expect(dialog).to_be_visible()
    page.keyboard.type("WEB-99")
    expect(dialog.get_by_role("status")).to_have_text("There is no issue WEB-99.")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/inbox/$"))  # nowhere else

    if width > 640:  # the header's box, sent: the palette with what was typed
        page.get_by_role("searchbox", name="Go to").fill("lead")
        page.keyboard.press("Enter")
        expect(box).to_have_value("lead")
        expect(options.first).to_contain_text("Leaderboard")
    else:  # a phone: the sections' "Go to" (no keyboard for Ctrl-K)
        page.locator("nav.sections").get_by_role("link", name="Go to").click()
        expect(box).to_be_focused()
        expect(options.first).to_contain_text("API Public API")
    _shot(page, f"palette-header-{width}")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    page.goto(world.project_url("1/"))
    page.get_by_role("textbox", name="Add a comment").click()  # typing in a field: Ctrl-K still opens it
    page.keyboard.type("jkc")
    page.keyboard.press("Control+k")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("textbox", name="Add a comment")).to_be_focused()  # the focus back
    expect(page.get_by_role("textbox", name="Add a comment")).to_have_value("jkc")


@pytest.fixture
def no_script_page(browser: Browser, live_server: LiveServer) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_go_to_without_javascript(no_script_page: Page, world: World, width: int) -> None:
    page = no_script_page
    page.set_viewport_size({"width": width, "height": 800})
    new_issue(world, "Checkout button is grey")
    page.goto("/accounts/login/")
    page.fill("input[name=username]", world.member.username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(world.url())
    if width > 640:  # the header's box
        page.get_by_role("searchbox", name="Go to").fill("team")
        page.get_by_role("searchbox", name="Go to").press("Enter")
        expect(page).to_have_url(re.compile(rf"/t/{world.slug}/go/\?q=team$"))
    else:  # a phone's header has no room for a box: its sections end with "Go to"
        expect(page.locator("form.goto")).to_be_hidden()
        page.locator("nav.sections").get_by_role("link", name="Go to").click()
        expect(page).to_have_url(re.compile(rf"/t/{world.slug}/go/$"))
    box = page.get_by_role("searchbox", name=re.compile("An issue"))
    box.fill("team")
    page.locator("form.go-page").get_by_role("button", name="Go").click()
    expect(page.get_by_role("link", name="Team", exact=True).last).to_be_visible()
    _shot(page, f"go-page-{width}")
    header = page.locator("header.top").bounding_box()
    assert header is not None
    assert header["height"] <= (64 if width < 640 else 50), f"the header wraps: {header['height']} px"
    box = page.get_by_role("searchbox", name=re.compile("An issue"))
    box.fill("WEB-1")
    box.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/1/$"))


# The palette's go/ lookups answer only after this long (a slow network), so an Enter can come while one is in flight.
SLOW_LOOKUPS = """
(() => {
  const real = window.fetch.bind(window);
  window.fetch = (url, options) => String(url).includes("format=json") ?
    new Promise((resolve) => setTimeout(resolve, 700)).then(() => real(url, options)) : real(url, options);
})();
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_enter_at_once_opens_what_was_typed_not_an_older_answer(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    """R2-4: typed and Enter at once (before the 120 ms pause, or while the lookup is on its way): what was typed
    is opened, not the first result of the answer shown before (the projects and pages of the empty box)."""
    page.set_viewport_size({"width": width, "height": 800})
    ddb_issues.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    new_issue(world, "Checkout button is grey")
    site_login(page, world.member.username)
    page.goto(world.url("leaderboard/"))
    dialog = page.locator(DIALOG)
    options = dialog.get_by_role("option")

    page.locator("h1").click()
    page.keyboard.press("Control+k")
    expect(options.first).to_contain_text("API Public API")  # the empty box's answer is shown
    page.keyboard.type("web-1")
    page.keyboard.press("Enter")  # at once: the lookup of "web-1" has not even started
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/1/$"))
    page.wait_for_load_state()

    page.add_init_script(SLOW_LOOKUPS)
    page.goto(world.url("leaderboard/"))
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    expect(options.first).to_contain_text("API Public API")
    page.keyboard.type("inbox")
    page.wait_for_timeout(300)  # the pause is over: the lookup of "inbox" is on its way
    expect(options.first).to_contain_text("API Public API")  # still the older answer on show,
    expect(dialog.locator("[aria-selected=true]")).to_have_count(0)  # none of it highlighted
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/inbox/$"))  # the first result of "inbox", once it came
    page.wait_for_load_state()

    page.locator("h1").click()
    page.keyboard.press("Control+k")
    expect(options.first).to_contain_text("API Public API")
    page.keyboard.type("inbox")
    page.keyboard.press("ArrowDown")  # one picked from what is on show (the older answer): opened as picked
    expect(options.first).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/API/$"))


A_MAC = "Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'MacIntel' });"


@pytest.mark.parametrize("mac", [False, True], ids=["linux", "mac"])
def test_the_help_names_the_key_that_opens_the_palette_while_typing(
    page: Page, world: World, violations: list[str], mac: bool
) -> None:
    """R2-5: the ? help names the one key that opens the palette anywhere, in a text box too: ⌘K on a Mac (whose
    Ctrl-K in a box deletes to the end of the line), Ctrl K elsewhere; what it says is what the keys do."""
    if mac:
        page.add_init_script(A_MAC)
    new_issue(world, "Checkout button is grey")
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    page.locator("h1").click()
    page.keyboard.press("?")
    said = page.get_by_role("dialog", name="Keyboard shortcuts").locator("p", has_text="go to an issue")
    expect(said).to_have_text(
        ("⌘K" if mac else "Ctrl K") + " anywhere, also while typing: go to an issue, a project or a page"
    )
    page.keyboard.press("Escape")
    box = page.get_by_role("textbox", name="Add a comment")
    dialog = page.locator(DIALOG)
    box.click()
    page.keyboard.press("Control+k" if mac else "Meta+k")  # the other platform's key: the box's own
    expect(dialog).to_be_hidden()
    page.keyboard.press("Meta+k" if mac else "Control+k")  # the key the help names
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(box).to_be_focused()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_long_answer_scrolls_in_its_list_and_the_status_and_hint_stay_in_sight(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    """Projects and pages fill more than the dialog's height: the list scrolls, not the dialog, so "N results" and the
    keys' hint stay below it in sight (they were below the fold at 1280 and 390 px when the dialog scrolled)."""
    page.set_viewport_size({"width": width, "height": 600})
    for key in ("API", "OPS", "APP", "DAT"):
        ddb_issues.project_create(tenant=world.slug, key=key, name=f"Project {key}", created_by=world.owner.username)
    site_login(page, world.member.username)
    page.goto(world.url("leaderboard/"))
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    dialog = page.locator(DIALOG)
    expect(dialog.get_by_role("option").first).to_be_visible()
    results = dialog.locator("#palette-results")
    assert results.evaluate("list => list.scrollHeight > list.clientHeight")  # more results than room: it scrolls
    assert dialog.evaluate("d => d.scrollHeight <= d.clientHeight")  # the dialog itself does not
    frame = dialog.bounding_box()
    assert frame is not None
    for part in (".palette-hint", ".palette-status"):
        box = dialog.locator(part).bounding_box()
        assert box is not None
        assert frame["y"] <= box["y"], part
        assert box["y"] + box["height"] <= frame["y"] + frame["height"] + 1, part
    for _ in range(12):
        page.keyboard.press("ArrowDown")
    expect(dialog.locator('[aria-selected="true"]')).to_be_in_viewport()  # the chosen one scrolled into sight
    _shot(page, f"palette-long-{width}")
    assert violations == []
