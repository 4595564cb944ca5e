"""Orders in a browser (issue 20): the team's owner may only cancel a pending order; staff mark it paid in the admin."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, shot, site_login, staff_user
from tests.tracker.conftest import World
from tests.tracker.orders_helpers import load_order, new_order

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_staff_mark_an_order_paid_and_the_owner_sees_it_without_buttons(page: Page, world: World, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    number = int(new_order(world).number)
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/orders/{number}/")
    expect(page.locator("form.actions button")).to_have_count(1)  # "Cancel order…" only
    expect(page.get_by_role("button", name="Cancel order…")).to_be_visible()
    expect(page.get_by_text("Tracker marks the order paid when your payment arrives")).to_be_visible()
    shot(page, f"order-pending-owner-{width}")

    staff_user(f"seller{width}", perms=("view_tenant", "change_tenant"))
    page.context.clear_cookies()
    admin_login(page, f"seller{width}", next_url=f"/admin/ddb/tracker/orders/?number={number}")
    page.get_by_role("button", name="Mark paid").click()
    expect(page.locator("ul.messagelist li.success")).to_have_text(f"Order #{number} ({world.slug}) is now Paid.")
    assert load_order(world, number).status == "paid"
    expect(page.get_by_role("button", name="Mark fulfilled")).to_be_visible()
    shot(page, f"admin-order-paid-{width}")

    page.context.clear_cookies()
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/orders/{number}/")
    expect(page.locator("form.actions")).to_have_count(0)
    expect(page.get_by_text("To cancel a paid order, ask Tracker staff.")).to_be_visible()
    shot(page, f"order-paid-owner-{width}")
