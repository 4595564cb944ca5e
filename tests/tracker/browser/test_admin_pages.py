"""Staff in a real browser: the capacity page and the tenant changelist (screenshots of each)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ddbmodels.core import connection
from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser


def test_the_capacity_page_charts_the_pages_just_used(page: Page, world: World) -> None:
    staff_user("ops-capacity", superuser=True)
    new_issue(world, "Something to read")
    admin_login(page, "ops-capacity")
    page.goto(f"/admin/ddb/tables/{connection.table_name('issues')}/?mode=query&pk={world.slug}%23WEB")
    expect(page.locator("#page-info")).to_contain_text("2 items")

    page.goto("/admin/")
    page.get_by_role("link", name="DynamoDB capacity").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/capacity/$"))
    expect(page.locator("#ddb-capacity-jobs h2")).to_have_text("By job")
    pages = page.locator("#ddb-capacity-pages")
    expect(pages.locator("h2")).to_have_text("By page")
    # The browse request above read DynamoDB: its URL name has a bar in the SVG chart and a table row.
    bar = pages.locator('svg.ddb-chart g.bar[data-label="ddb_browse"]')
    expect(bar).to_have_count(1)
    expect(bar.locator("title")).to_contain_text(re.compile(r"ddb_browse: [0-9.]+ RCU"))
    assert float(bar.locator("rect.rcu").get_attribute("width") or "0") > 0
    row = pages.locator("tbody tr").filter(has=page.locator("td", has_text=re.compile(r"^ddb_browse$")))
    expect(row).to_have_count(1)
    assert float(row.locator("td").nth(2).inner_text()) > 0  # RCU
    shot(page, "admin-10-capacity")


def test_the_tenant_changelist_lists_the_worlds_tenant(page: Page, world: World) -> None:
    staff_user("ops-tenants", superuser=True)
    admin_login(page, "ops-tenants")
    tracker_app = page.locator("#content-main .app-tracker")
    expect(tracker_app).to_be_visible()  # the index's "Tracker" app: Tenants, Memberships
    tracker_app.get_by_role("link", name="Tenants", exact=True).click()
    expect(page).to_have_url(re.compile(r"/admin/tracker/tenant/$"))
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(world.tenant.name)
    expect(rows.first).to_contain_text(world.slug)
    shot(page, "admin-11-tenants")

    rows.first.get_by_role("link", name=world.tenant.name).click()
    expect(page.locator("div.readonly")).to_have_text(world.slug)  # the slug cannot change once created
    memberships = page.locator("#memberships-group")
    for user in (world.owner, world.member, world.viewer):
        expect(memberships).to_contain_text(user.username)
    shot(page, "admin-12-tenant")
