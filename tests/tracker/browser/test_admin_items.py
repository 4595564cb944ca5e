"""Staff in a real browser: admin login, Tables, the item browser, edit-as-JSON, a stale edit refused."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues
from ddbmodels.core import connection
from tests.tracker.browser.helpers import admin_login, admin_messages, shot, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.views.admin.items import STALE

pytestmark = pytest.mark.browser


def open_issue_item(page: Page, world: World, title: str) -> None:
    """From the browse page of the issues table: query the world's project partition, open ``title``."""
    page.select_option("#id_mode", "query")
    page.fill("#id_pk", f"{world.slug}#{world.project_key}")
    page.click("#browse-form [type=submit]")
    item = page.locator(".ddb-item").filter(has_text=title)
    expect(item).to_have_count(1)
    item.get_by_role("link", name="Open item").click()
    expect(page.locator("#item-json")).to_contain_text(title)


def edit_title(page: Page, title: str) -> dict:
    """Change the item's title ("t") in the page's JSON editor, as a person would; return the JSON."""
    editor = page.locator("#id_item_json")
    item = json.loads(editor.input_value())
    item["t"] = {"S": title}
    editor.fill(json.dumps(item, indent=2))
    return item


def test_staff_browse_a_project_partition_edit_an_issue_and_have_a_stale_edit_refused(page: Page, world: World) -> None:
    staff_user("ops-admin", superuser=True)
    first = new_issue(world, "Fix the login page")
    second = new_issue(world, "Write the docs")
    issues_table = connection.table_name("issues")

    admin_login(page, "ops-admin")
    expect(page).to_have_url(re.compile(r"/admin/$"))
    expect(page.locator("#site-name")).to_have_text("Tracker administration")
    expect(page.locator("#ddb-module")).to_contain_text("Tables")
    expect(page.locator("#ddb-jobs-links")).to_contain_text("Maintenance jobs")
    shot(page, "admin-01-index")

    page.locator("#ddb-module").get_by_role("link", name="Tables").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/tables/$"))
    issues_module = page.locator(f"[id='table-{issues_table}']")
    expect(issues_module).to_contain_text("pk (S, HASH), n (N, RANGE)")
    shot(page, "admin-02-tables")

    issues_module.locator("caption a").click()
    expect(page).to_have_url(re.compile(rf"/admin/ddb/tables/{re.escape(issues_table)}/"))
    page.select_option("#id_mode", "query")
    page.fill("#id_pk", f"{world.slug}#WEB")
    page.click("#browse-form [type=submit]")
    expect(page.locator("#page-info")).to_contain_text("3 items")  # the project's static item + two issues
    expect(page.locator("#page-rcu")).to_have_text(re.compile(r"^[0-9.]+ RCU$"))
    expect(page.locator(".ddb-item").filter(has_text="Fix the login page")).to_have_count(1)
    expect(page.locator(".ddb-item").filter(has_text="Write the docs")).to_have_count(1)
    shot(page, "admin-03-browse")

    # Edit issue 1 as JSON: saved (conditional PutItem), message, new title shown and stored.
    page.locator(".ddb-item").filter(has_text="Fix the login page").get_by_role("link", name="Open item").click()
    expect(page.locator("#item-json")).to_contain_text("Fix the login page")
    shot(page, "admin-04-item")
    edit_title(page, "Fix the login page (edited in the admin)")
    page.click("#edit-form [type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("Saved")
    expect(page.locator("#item-json")).to_contain_text("Fix the login page (edited in the admin)")
    expect(page.locator("#id_item_json")).to_have_value(re.compile(r"edited in the admin"))
    shot(page, "admin-05-item-saved")
    stored = load(world, 1)
    assert stored is not None
    assert stored.title == "Fix the login page (edited in the admin)"
    assert stored.version == first.version + 1

    # Stale edit: the page holds issue 2 as loaded; someone changes it; the page's save is refused.
    page.goto(f"/admin/ddb/tables/{issues_table}/?mode=query&pk={world.slug}%23WEB")
    open_issue_item(page, world, "Write the docs")
    edit_title(page, "The admin's stale title")
    current = load(world, 2)
    assert current is not None
    issues.issue_update(
        current, title="Changed behind the page's back", description="", priority="high", assignee=None, labels=[]
    )
    page.click("#edit-form [type=submit]")
    expect(page.locator("#edit-form .errorlist.nonfield li")).to_have_text(STALE)  # a form error: the JSON stays
    assert not any("Saved" in m for m in admin_messages(page))
    # The page now shows what DynamoDB holds, not the refused edit.
    expect(page.locator("#item-json")).to_contain_text("Changed behind the page's back")
    shot(page, "admin-06-item-stale-refused")
    stored = load(world, 2)
    assert stored is not None
    assert stored.title == "Changed behind the page's back"
    assert stored.priority == "high"
    assert stored.version == second.version + 1  # only the behind-the-back update was written


def test_the_item_browser_pages_at_a_readable_height_and_the_sidebar_leads_to_the_dynamodb_pages(
    page: Page, world: World
) -> None:
    staff_user("ops-reader", perms=("view_tenant",))
    for n in range(12):
        new_issue(world, f"Readable {n + 1} " + "long words " * 30)
    page.set_viewport_size({"width": 1280, "height": 900})
    admin_login(page, "ops-reader", next_url="/admin/ddb/tables/")
    sidebar = page.locator("#nav-sidebar .app-ddb")
    expect(sidebar.get_by_role("link", name="Capacity")).to_be_visible()
    sidebar.get_by_role("link", name="Tables and items").click()
    page.locator(f"[id='table-{connection.table_name('issues')}'] caption a").click()
    page.select_option("#id_mode", "query")
    page.fill("#id_pk", f"{world.slug}#WEB")
    page.click("#browse-form [type=submit]")
    expect(page.locator("#page-info")).to_contain_text("Page 1: 10 items")
    expect(page.locator(".ddb-item")).to_have_count(10)
    boxes = page.locator(".ddb-fields-box")
    heights = [boxes.nth(n).evaluate("box => box.getBoundingClientRect().height") for n in range(10)]
    font = page.locator(".ddb-fields-box").first.evaluate("box => parseFloat(getComputedStyle(box).fontSize)")
    assert max(heights) <= 18 * font + 1  # each item's fields scroll inside an 18em box
    expect(page.locator(".ddb-field-name").first).to_be_visible()
    shot(page, "admin-browse-readable")
