"""What only a real browser shows on the admin's DynamoDB pages: readable links, the site's own frame.

Both guard bugs these tests found: header links in the header's own colour (invisible), and
DynamoDB pages rendered without the admin site's context (no site name, no user menu).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from ddbmodels.core import connection
from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

# WCAG 2 contrast ratio of each link in a module header (h2/caption) against the header's background.
HEADER_LINK_CONTRAST = """() => {
  const rgb = s => s.match(/[0-9.]+/g).slice(0, 3).map(Number);
  const linear = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const lum = c => { const [r, g, b] = c.map(linear); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  return [...document.querySelectorAll(".module h2 a, .module caption a")].map(a => {
    const header = a.closest("h2, caption");
    const [l1, l2] = [lum(rgb(getComputedStyle(a).color)), lum(rgb(getComputedStyle(header).backgroundColor))];
    return [a.textContent.trim(), (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)];
  });
}"""


def ddb_pages(world: World) -> dict[str, str]:
    table = connection.table_name("issues")
    return {
        "tables": "/admin/ddb/tables/",
        "browse": f"/admin/ddb/tables/{table}/?mode=query&pk={world.slug}%23WEB",
    }


def test_links_in_module_headers_are_readable(page: Page, world: World) -> None:
    staff_user("ops-looks", superuser=True)
    new_issue(world, "Anything")
    admin_login(page, "ops-looks")
    for name, url in ddb_pages(world).items():
        page.goto(url)
        links = page.evaluate(HEADER_LINK_CONTRAST)
        assert links, f"{name}: no links in module headers"
        unreadable = [(text, round(ratio, 2)) for text, ratio in links if ratio < 3]
        if unreadable:
            shot(page, f"unreadable-header-links-{name}")
        assert unreadable == [], f"{name}: header links with contrast below 3:1"


def test_the_dynamodb_pages_have_the_tracker_header_and_the_user_menu(page: Page, world: World) -> None:
    staff_user("ops-frame", superuser=True)
    new_issue(world, "Anything")
    admin_login(page, "ops-frame")
    expect(page.locator("#site-name")).to_have_text("Tracker administration")  # the index has them
    page.goto("/admin/ddb/jobs/")
    expect(page.locator("#site-name")).to_have_text("Tracker administration")  # so do the jobs pages
    expect(page.locator("#logout-form")).to_have_count(1)
    item = ""
    for name, url in [*ddb_pages(world).items(), ("item", "")]:
        page.goto(url or item)
        if name == "browse":
            item = page.get_by_role("link", name="Open item").first.get_attribute("href") or ""
        shot(page, f"frame-{name}")
        assert page.locator("#site-name").inner_text() == "Tracker administration", name
        assert page.locator("#logout-form").count() == 1, name
