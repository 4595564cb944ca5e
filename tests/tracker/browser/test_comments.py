"""A member comments in a real browser: markdown rendered, a mention linked, no sideways scrolling on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import comments
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LONG_WORD = "https://example.com/" + "a-very-long-path-segment-" * 8  # wider than a phone on one line


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def test_a_member_posts_a_comment_and_sees_it_rendered_at_desktop_and_phone_width(page: Page, world: World) -> None:
    new_issue(world, "Pages are slow")
    owner = world.owner.username
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    body = f"**Looked into it** with @{owner}:\n\n- the cache is cold\n- `SELECT *` everywhere\n\n{LONG_WORD}"
    page.fill("textarea[name=body]", body)
    page.get_by_role("button", name="Comment").click()

    expect(page).to_have_url(re.compile(rf"{world.project_url('1/')}\?comments=.+#comment-\d{{17}}-[0-9a-f]{{12}}$"))
    expect(page.locator("ul.messages li.success")).to_have_text("Comment posted.")
    rendered = page.locator(".comment .comment-body").first
    expect(rendered.locator("strong")).to_have_text("Looked into it")
    expect(rendered.locator("li")).to_have_text(["the cache is cold", "SELECT * everywhere"])
    mention = rendered.locator("a.mention")
    expect(mention).to_have_text(f"@{owner}")
    expect(mention).to_have_attribute("href", f"/t/{world.slug}/issues/?assignee={owner}")
    expect(page.locator("section.activity")).to_contain_text(f"{world.member.username} commented")
    (stored,) = comments.comment_page(stream=comments.issue_stream(world.slug, "WEB", 1)).comments
    assert stored.body == body
    assert page_width(page) <= page.viewport_size["width"]  # type: ignore[index]
    shot(page, "comments-01-desktop")

    page.set_viewport_size(PHONE)
    page.reload()
    expect(rendered.locator("strong")).to_have_text("Looked into it")
    assert page_width(page) <= PHONE["width"], f"the issue page is {page_width(page)} px wide on a phone"
    shot(page, "comments-02-phone")
