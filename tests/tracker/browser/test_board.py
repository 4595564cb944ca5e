"""In a real browser: the board. Dragging a card at 1280 px, its buttons at 390 px (with and without JavaScript).

A move the server refuses (the issue changed since the board was loaded) puts the card in the
column of the issue's status now and the status line says why; a move whose answer is lost is
said to be unknown, with a link to reload; a column the workflow does not allow takes no card.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from ddbmodels import issues, labels, milestones
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/D")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _story(world: World) -> None:
    """WEB-1..3 open, WEB-4 in progress, WEB-5 resolved, WEB-6 closed."""
    titles = [
        "Login button is grey on Safari",
        "Search box loses focus after typing",
        "Footer links overlap on small screens",
        "Password reset mail is sent twice",
        "Dark mode colours are too faint",
        "Broken link to the privacy policy",
    ]
    for n, title in enumerate(titles, 1):
        issue = new_issue(
            world, title, assignee=world.member.username if n % 2 else None, labels=["ui"] if n < 4 else ["bug"]
        )
        for to in {4: ["in_progress"], 5: ["resolved"], 6: ["closed"]}.get(n, []):
            issue = issues.issue_change_status(issue, to=to)
    for name, colour in (("ui", "purple"), ("bug", "red")):
        label = labels.label_get(world.slug, name)
        assert label is not None
        labels.label_save(world.slug, name, colour=colour, description="", expected_version=int(label.version or 0))


def _column(page: Page, status: str, number: int) -> None:  # the card is in that column
    expect(page.locator(f"#column-{status} #card-{number}")).to_be_visible()


def test_a_card_dragged_to_another_column_is_moved_and_a_stale_one_goes_back(
    page: Page, world: World, violations: list[str]
) -> None:
    _story(world)
    site_login(page, world.member.username)
    page.goto(world.project_url())
    page.locator("nav.project-views").get_by_role("link", name="Board").click()
    expect(page.locator("h1")).to_contain_text("board")
    expect(page.locator("[data-drag-help]")).to_be_visible()  # the script runs
    _shot(page, "board-01-1280")

    page.locator("#card-1").drag_to(page.locator("#column-resolved"))
    expect(page.locator("#board-status")).to_have_text("WEB-1 is now Resolved.")
    _column(page, "resolved", 1)
    assert load(world, 1).status == "resolved"
    expect(page.locator("#card-1").get_by_role("button")).to_have_text(["Open", "Closed"])  # its new moves
    _shot(page, "board-02-dragged-1280")

    page.locator("#card-6").drag_to(page.locator("#column-resolved"))  # closed → resolved: not a move
    _column(page, "closed", 6)
    assert load(world, 6).status == "closed"

    issues.issue_change_status(load(world, 2), to="closed")  # someone else, after the board was loaded
    page.locator("#card-2").drag_to(page.locator("#column-in_progress"))
    expect(page.locator("#board-status")).to_contain_text("WEB-2 changed since the board was loaded: it is now Closed.")
    _column(page, "closed", 2)  # where it is now (review F5), marked as refused
    expect(page.locator("#card-2")).to_have_class("card snapped")
    assert load(world, 2).status == "closed"
    _shot(page, "board-03-refused-1280")

    page.reload()  # what the server has
    _column(page, "resolved", 1)
    _column(page, "closed", 2)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_card_moves_by_its_buttons(page: Page, world: World, violations: list[str], width: int) -> None:
    _story(world)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("board/"))
    board = page.locator("[data-board]")
    if width == 390:  # one column at a time, scrolled sideways with snap points
        assert board.evaluate("b => getComputedStyle(b).scrollSnapType") == "x mandatory"
        assert board.evaluate("b => b.scrollWidth > b.clientWidth + 200")
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # only the board scrolls
    _shot(page, f"board-04-buttons-{width}")
    page.get_by_role("button", name="Move WEB-3 to In progress").click()
    expect(page.locator("#board-status")).to_have_text("WEB-3 is now In progress.")
    _column(page, "in_progress", 3)
    assert load(world, 3).status == "in_progress"
    page.locator("#column-in_progress").scroll_into_view_if_needed()
    _shot(page, f"board-05-moved-{width}")
    page.get_by_role("button", name="Move WEB-3 to Resolved").click()  # its rebuilt buttons work too
    expect(page.locator("#board-status")).to_have_text("WEB-3 is now Resolved.")
    _column(page, "resolved", 3)
    assert load(world, 3).status == "resolved"


def test_without_javascript_the_buttons_post_and_the_board_comes_back(
    browser: Browser, live_server: LiveServer, world: World
) -> None:
    _story(world)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 900}, java_script_enabled=False
    )
    page = context.new_page()
    try:
        site_login(page, world.member.username)
        page.goto(world.project_url("board/"))
        expect(page.locator("[data-drag-help]")).to_be_hidden()
        page.get_by_role("button", name="Move WEB-4 to Resolved").click()
        expect(page.locator("ul.messages li.success")).to_have_text("WEB-4 is now Resolved.")
        expect(page.locator("#column-resolved #card-4")).to_have_count(1)
        assert load(world, 4).status == "resolved"
        _shot(page, "board-06-nojs-390")
        issues.issue_change_status(load(world, 5), to="closed")
        page.get_by_role("button", name="Move WEB-5 to Open").click()  # stale: a 409 page, the way back
        expect(page.locator("h1")).to_have_text("Changed since you opened it")
        _shot(page, "board-07-nojs-stale-390")
        page.get_by_role("link", name="Back to the board").click()
        expect(page.locator("#column-closed #card-5")).to_have_count(1)
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_viewer_sees_the_board_without_buttons(page: Page, world: World, violations: list[str], width: int) -> None:
    _story(world)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.viewer.username)
    page.goto(world.project_url("board/"))
    expect(page.locator("#column-open [data-card]")).to_have_count(3)
    expect(page.locator("[data-board] button")).to_have_count(0)
    expect(page.locator("[data-card][draggable=true]")).to_have_count(0)
    _shot(page, f"board-08-viewer-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_board_of_one_milestone(page: Page, world: World, violations: list[str], width: int) -> None:
    _story(world)
    v12, _ = milestones.milestone_create(
        tenant=world.slug, project_key=world.project_key, name="v1.2", due=None, created_by=world.owner.username
    )
    for number in (2, 4, 5):
        issues.issue_change(load(world, number), token=f"set-{number}", milestone=v12.milestone_id)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("board/"))
    page.get_by_label("Milestone").select_option("v1.2")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("h1")).to_contain_text("v1.2")
    expect(page.locator("[data-card]")).to_have_count(3)
    _column(page, "open", 2)
    _column(page, "in_progress", 4)
    _column(page, "resolved", 5)
    _shot(page, f"board-09-milestone-{width}")
    page.get_by_role("button", name="Move WEB-2 to In progress").click()
    expect(page.locator("#board-status")).to_have_text("WEB-2 is now In progress.")
    page.reload()
    _column(page, "in_progress", 2)
    expect(page.locator("[data-card]")).to_have_count(3)


F5_SHOTS = Path("/tmp/shots/F5")  # noqa: S108  (review finding F5: a lost or refused answer)


def _f5_shot(page: Page, name: str) -> None:
    F5_SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), F5_SHOTS / f"{name}.png")


def test_a_card_moved_elsewhere_since_the_board_was_loaded_lands_where_it_is_and_moves_on(
    page: Page, world: World, violations: list[str]
) -> None:
    _story(world)
    page.set_viewport_size({"width": 1280, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("board/"))
    expect(page.locator("[data-drag-help]")).to_be_visible()
    issues.issue_change_status(load(world, 3), to="resolved")  # someone else, after the board was loaded
    page.locator("#card-3").drag_to(page.locator("#column-in_progress"))
    expect(page.locator("#board-status")).to_contain_text(
        "WEB-3 changed since the board was loaded: it is now Resolved"
    )
    _column(page, "resolved", 3)  # where it is, not back in Open
    expect(page.locator("#card-3").get_by_role("button")).to_have_text(["Open", "Closed"])  # Resolved's moves
    _f5_shot(page, "f5-01-changed-1280")
    page.locator("#card-3").drag_to(page.locator("#column-closed"))  # with the version it has now: not refused
    expect(page.locator("#board-status")).to_have_text("WEB-3 is now Closed.")
    _column(page, "closed", 3)
    assert load(world, 3).status == "closed"
    page.reload()
    _column(page, "closed", 3)


def test_a_move_whose_answer_is_lost_is_not_called_undone_and_sent_again_lands_where_it_is(
    page: Page, world: World, violations: list[str]
) -> None:
    _story(world)
    page.set_viewport_size({"width": 1280, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("board/"))
    expect(page.locator("[data-drag-help]")).to_be_visible()

    def saved_then_lost(route) -> None:  # type: ignore[no-untyped-def]
        route.fetch()  # the server saves the move …
        route.abort("connectionreset")  # … and its answer never arrives

    page.route("**/board/move/**", saved_then_lost)
    page.locator("#card-1").drag_to(page.locator("#column-in_progress"))
    expect(page.locator("#board-status")).to_contain_text("may or may not have been moved")
    expect(page.locator("#board-status")).not_to_contain_text("nothing was moved")
    expect(page.locator("#board-status").get_by_role("link", name="Reload the board")).to_be_visible()
    assert load(world, 1).status == "in_progress"
    _f5_shot(page, "f5-02-lost-1280")
    page.unroute("**/board/move/**")

    page.get_by_role("button", name="Move WEB-1 to In progress").click()  # sent again: a 409, it is there
    expect(page.locator("#board-status")).to_contain_text("WEB-1 is already In progress")
    _column(page, "in_progress", 1)
    _f5_shot(page, "f5-03-already-1280")
    page.get_by_role("button", name="Move WEB-1 to Resolved").click()
    expect(page.locator("#board-status")).to_have_text("WEB-1 is now Resolved.")
    _column(page, "resolved", 1)
    assert load(world, 1).status == "resolved"
