"""Finding issues in a browser: the query box, status tabs, My issues, a jump to WEB-N, at desktop and phone width."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from ddbmodels import issues
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tracker.search import indexing as search_indexing

pytestmark = pytest.mark.browser

SIZES: list[ViewportSize] = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


def rows(page: Page) -> list[str]:
    return page.locator("table.issues td[data-label=Issue] a").all_inner_texts()


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_member_filters_searches_and_jumps_with_the_query_box(page: Page, world: World, size: ViewportSize) -> None:
    page.set_viewport_size(size)
    member = world.member.username
    new_issue(world, "Checkout fails on Safari", labels=["bug"], assignee=member)
    new_issue(world, "Dark mode for the dashboard", labels=["feature"])
    closed = new_issue(world, "Safari shows a blank footer", labels=["bug"])
    issues.issue_change_status(closed, to="closed")
    search_indexing.rebuild(tenant=world.slug)  # written straight to DynamoDB: no change events fed the search index
    site_login(page, member)

    page.goto(f"/t/{world.slug}/p/WEB/")
    assert rows(page) == ["WEB-2", "WEB-1"]  # the open issues, newest first
    box = page.get_by_role("searchbox", name="Filter or search issues")
    expect(box).to_have_value("")  # the list's defaults are its tab and sort, not text in the box

    box.fill("label:bug")
    box.press("Enter")
    expect(page.locator("table.issues")).to_be_visible()
    assert rows(page) == ["WEB-1"]
    page.get_by_role("link", name=re.compile(r"^Closed")).click()
    assert rows(page) == ["WEB-3"]
    expect(box).to_have_value("is:closed label:bug")

    box.fill("safari")
    box.press("Enter")
    assert sorted(rows(page)) == ["WEB-1", "WEB-3"]  # a search shows every status (best match first)
    shot(page, f"issue-list-search-{size['width']}")
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= size["width"]

    page.locator("header.top").get_by_role("link", name="My issues").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("My issues")
    assert rows(page) == ["WEB-1"]

    box = page.get_by_role("searchbox", name="Filter or search issues")
    box.fill("web-2")
    box.press("Enter")
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/2/$"))


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_clear_empties_the_box_and_a_word_typed_after_slash_is_a_word_of_its_own(
    page: Page, world: World, size: ViewportSize
) -> None:
    page.set_viewport_size(size)
    new_issue(world, "Deploy the new pipeline")
    closed = new_issue(world, "Deploy script fails on Fridays")
    issues.issue_change_status(closed, to="closed")
    new_issue(world, "Dark mode")
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/?q=is:closed+sort:oldest")
    box = page.get_by_role("searchbox", name="Filter or search issues")
    expect(box).to_have_value("is:closed sort:oldest")
    page.get_by_role("link", name="Clear").click()
    expect(box).to_have_value("")
    assert rows(page) == ["WEB-3", "WEB-1"]  # back to the default list: open, newest first

    page.locator("h1").click()
    page.keyboard.press("/")
    page.keyboard.type("deploy")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/p/WEB/\?q=deploy$"))  # a search, not "sort:newestdeploy" (a 400)
    expect(box).to_have_value("deploy")

    page.get_by_role("link", name="Clear").click()
    page.get_by_role("link", name=re.compile(r"^Closed")).click()
    expect(box).to_have_value("is:closed")
    page.locator("h1").click()
    page.keyboard.press("/")  # the caret after a space: the next word is not glued to the filter
    page.keyboard.type("deploy")
    expect(box).to_have_value("is:closed deploy")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?q=is%3Aclosed\+deploy$"))
    expect(page.get_by_role("alert")).to_have_count(0)


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_word_run_into_a_filter_is_a_form_error_above_the_list(page: Page, world: World, size: ViewportSize) -> None:
    page.set_viewport_size(size)
    new_issue(world, "Deploy the new pipeline")
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/")
    box = page.get_by_role("searchbox", name="Filter or search issues")
    box.fill("sort:updateddeploy")
    box.press("Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("“sort:updateddeploy” is not a sort this list knows")
    expect(box).to_have_attribute("aria-invalid", "true")
    assert rows(page) == ["WEB-1"]  # the list is still there
    shot(page, f"issue-list-bad-query-{size['width']}")
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= size["width"]
    alert.get_by_role("link", name="sort:updated deploy").click()
    expect(box).to_have_value("sort:updated deploy")
    expect(page.get_by_role("alert")).to_have_count(0)
