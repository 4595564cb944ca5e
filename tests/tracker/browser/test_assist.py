"""The text boxes' helpers in a real browser: @mentions and labels suggested as one types, the assignee box,
Write / Preview tabs (static/tracker/autocomplete.js, preview.js), at desktop and phone width."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Error, Page, Route, expect
from pytest_django.live_server_helper import LiveServer

from ddbmodels import comments, labels
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.models import Membership

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/E2")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def person(world: World, name: str, role: str = "member") -> User:
    user = User.objects.create_user(name, password="pw-for-tests")
    Membership.objects.create(user=user, tenant=world.tenant, role=role)
    return user


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


@pytest.mark.parametrize("width", [1280, 390])
def test_typing_at_a_down_enter_writes_the_mention(page: Page, world: World, violations: list[str], width: int) -> None:
    person(world, "alice")
    person(world, "aaron", role="viewer")
    new_issue(world, "Pages are slow")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    box = page.locator("form.comment-form textarea[name=body]")
    box.click()
    box.press_sequentially("Thanks @a")
    options = page.locator("form.comment-form [role=listbox] [role=option]")
    expect(options).to_have_text(["aaron (viewer)", "alice"])  # viewers can be mentioned: they read the team
    expect(box).not_to_have_attribute("aria-activedescendant", "")
    box.press("ArrowDown")
    box.press("ArrowDown")
    second = options.nth(1)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", second.get_attribute("id") or "?")
    assert page_width(page) <= width
    _shot(page, f"assist-01-mention-list-{width}")
    box.press("Enter")
    expect(box).to_have_value("Thanks @alice ")
    expect(page.locator("form.comment-form [role=listbox]")).to_be_hidden()
    box.press_sequentially("and @zz")  # nobody: no list
    box.press("Escape")
    expect(page.locator("form.comment-form [role=listbox]")).to_be_hidden()
    page.get_by_role("button", name="Comment", exact=True).click()
    expect(page.locator("ul.messages li.success")).to_have_text("Comment posted.")
    mention = page.locator(".comment .comment-body a.mention")
    expect(mention).to_have_text("@alice")
    (stored,) = comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments
    assert stored.body == "Thanks @alice and @zz"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_preview_tab_shows_the_rendered_markdown_and_write_brings_the_text_back(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    person(world, "alice")
    new_issue(world, "Pages are slow")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    form = page.locator("form.comment-form")
    expect(form.locator("[data-preview-button]")).to_be_hidden()  # the tabs do its work
    text = "**Steps** for @alice:\n\n- open the page\n- <script>alert(1)</script>"
    form.locator("textarea[name=body]").fill(text)
    form.get_by_role("tab", name="Preview").click()
    pane = form.get_by_role("tabpanel")
    expect(pane.locator("strong")).to_have_text("Steps")
    expect(pane.locator("a.mention")).to_have_text("@alice")
    expect(pane.locator("li")).to_have_text(["open the page", "<script>alert(1)</script>"])
    expect(form.locator("textarea[name=body]")).to_be_hidden()
    expect(form.get_by_role("tab", name="Preview")).to_have_attribute("aria-selected", "true")
    assert page_width(page) <= width
    _shot(page, f"assist-02-preview-tab-{width}")
    form.get_by_role("tab", name="Write").click()
    expect(form.locator("textarea[name=body]")).to_have_value(text)
    expect(pane).to_be_hidden()
    assert comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments == []  # nothing saved


@pytest.mark.parametrize("width", [1280, 390])
def test_a_new_issue_takes_a_suggested_label_and_assignee(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    alice = person(world, "alice")
    person(world, "anna", role="viewer")  # a viewer cannot be assigned: never offered there
    labels.registry_ensure(world.slug, ["bug", "build"])
    labels.label_save(world.slug, "bug", colour="red", description="Something is broken", expected_version=0)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("new/"))
    page.get_by_label("Title").fill("Slow search")
    field = page.get_by_role("combobox", name="Labels")
    field.press_sequentially("bu")
    options = page.locator("[role=listbox][aria-label=Labels] [role=option]")
    expect(options).to_have_text(["bug — Something is broken", "build"])
    chip = options.first.locator(".label.label-red")
    expect(chip).to_have_text("bug")  # the label's chip in its colour (labels.css)
    expect(chip).to_have_css("background-color", "rgb(255, 235, 233)")
    _shot(page, f"assist-03-label-list-{width}")
    field.press("ArrowDown")
    field.press("Enter")
    expect(field).to_have_value("bug, ")
    assignee = page.get_by_role("combobox", name="Assignee")
    assignee.press_sequentially("a")
    people = page.locator("[role=listbox][aria-label=People] [role=option]")
    expect(people).to_have_text(["alice"])
    assert page_width(page) <= width
    _shot(page, f"assist-04-assignee-list-{width}")
    assignee.press("ArrowDown")
    assignee.press("Enter")
    expect(assignee).to_have_value("alice")
    page.get_by_role("tab", name="Preview").click()
    expect(page.get_by_role("tabpanel")).to_contain_text("Nothing to preview.")
    _shot(page, f"assist-05-new-issue-{width}")
    page.get_by_role("button", name="Create issue").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Created WEB-1.")
    issue = load(world, 1)
    assert issue is not None
    assert (issue.assignee, sorted(issue.labels or ())) == (alice.username, ["bug"])


@pytest.mark.parametrize("width", [1280, 390])
def test_without_javascript_the_preview_button_shows_the_text_and_saves_nothing(
    browser: Browser, live_server: LiveServer, world: World, width: int
) -> None:
    person(world, "alice")
    new_issue(world, "Pages are slow")
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, java_script_enabled=False
    )
    try:
        page = context.new_page()
        site_login(page, world.member.username)
        page.goto(world.project_url("1/"))
        form = page.locator("form.comment-form")
        expect(form.get_by_role("tab")).to_have_count(0)  # no tabs without JavaScript: the button instead
        form.locator("textarea[name=body]").fill("_Looked_ at it with @alice")
        form.get_by_role("button", name="Preview").click()
        shown = page.locator("section.preview-shown")
        expect(shown.locator("h2")).to_have_text("Preview (not saved yet)")
        expect(shown.locator("em")).to_have_text("Looked")
        expect(shown.locator("a.mention")).to_have_text("@alice")
        expect(page.locator("form.comment-form textarea[name=body]")).to_have_value("_Looked_ at it with @alice")
        assert comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments == []
        assert page_width(page) <= width
        _shot(page, f"assist-06-no-js-preview-{width}")
        page.locator("form.comment-form").get_by_role("button", name="Comment", exact=True).click()
        expect(page.locator("ul.messages li.success")).to_have_text("Comment posted.")
        (stored,) = comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments
        assert stored.body == "_Looked_ at it with @alice"
    finally:
        context.close()


def test_the_comment_edit_page_has_the_tabs_too(page: Page, world: World, violations: list[str]) -> None:
    new_issue(world, "Pages are slow")
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    page.locator("form.comment-form textarea[name=body]").fill("first words")
    page.get_by_role("button", name="Comment", exact=True).click()
    page.locator(".comment").get_by_role("link", name="Edit").click()
    page.locator("textarea[name=body]").fill("~~first~~ second words")
    page.get_by_role("tab", name="Preview").click()
    expect(page.get_by_role("tabpanel").locator("s")).to_have_text("first")
    _shot(page, "assist-07-comment-edit-preview-1280")
    (stored,) = comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments
    assert stored.body == "first words"


def test_an_answer_that_comes_after_the_box_was_left_opens_no_list(
    page: Page, world: World, violations: list[str]
) -> None:
    person(world, "alice")
    new_issue(world, "Pages are slow")
    site_login(page, world.member.username)
    held: list[Route] = []
    page.route("**/autocomplete/**", lambda route: held.append(route))  # held back until the box is left
    page.goto(world.project_url("1/"))
    box = page.locator("form.comment-form textarea[name=body]")
    box.click()
    box.press_sequentially("@a")
    page.wait_for_timeout(400)  # the request is sent after a 120 ms pause
    page.locator("h1").click()  # the box is left
    page.wait_for_timeout(300)
    assert held, "no suggestions were asked"
    page.unroute("**/autocomplete/**")
    for route in held:
        with contextlib.suppress(Error):  # the page may have given up on it (aborted): nothing to answer
            route.continue_()
    page.wait_for_timeout(500)
    expect(page.locator("form.comment-form [role=listbox]")).to_be_hidden()
    box.click()  # back in the box: typing asks again and the list shows
    box.press_sequentially("l")
    expect(page.locator("form.comment-form [role=option]")).to_have_text(["alice"])
