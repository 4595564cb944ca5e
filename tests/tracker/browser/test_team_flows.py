"""In a real browser: an owner invites a new person who signs up through the link; cancelling an order asks first."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.tracker.browser.conftest import VIEWPORT
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.orders_helpers import load_order, new_order
from tracker.models import Membership

pytestmark = pytest.mark.browser


def test_an_owner_invites_someone_new_who_signs_up_and_lands_in_the_team(
    page: Page, world: World, browser: Browser, live_server: LiveServer
) -> None:
    site_login(page, world.owner.username)
    page.locator("nav.sections").get_by_role("link", name="Team").click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/team/$"))
    invite = page.locator("form#invite")
    invite.get_by_label("E-mail (optional)").fill("nina@example.org")
    invite.get_by_label("Role").select_option("viewer")
    invite.get_by_role("button", name="Create an invitation link").click()
    link = page.get_by_label("Invitation link").input_value()
    assert re.fullmatch(rf"{re.escape(live_server.url)}/t/{world.slug}/team/join/#[^/#]+", link), link
    shot(page, "team-01-invitation")

    stranger = browser.new_context(viewport=VIEWPORT).new_page()
    try:
        stranger.goto(link)
        expect(stranger.locator("h1")).to_have_text(f"Join {world.tenant.name}")
        expect(stranger.locator("#id_email")).to_have_value("nina@example.org")
        stranger.fill("#id_username", "nina")
        stranger.fill("#id_password1", "a-long-pass-417")
        stranger.fill("#id_password2", "a-long-pass-417")
        stranger.get_by_role("button", name="Create my account and join").click()
        expect(stranger).to_have_url(re.compile(rf"/t/{world.slug}/$"))
        expect(stranger.locator("header.top .who")).to_have_text("nina")
        expect(stranger.locator("ul.messages li.success")).to_have_text(f"Welcome to {world.tenant.name}.")
        # A viewer: no "New project" and, on the team page, no forms.
        expect(stranger.get_by_role("link", name="New project")).to_have_count(0)
        stranger.locator("nav.sections").get_by_role("link", name="Team").click()
        expect(stranger.locator("main h1")).to_be_visible()
        expect(stranger.locator("main form")).to_have_count(0)  # the header's own (switcher, Go to, Log out) aside
        stranger.goto(link)
        expect(stranger.locator("h1")).to_have_text("This link cannot be used")
    finally:
        stranger.context.close()
    assert Membership.objects.get(tenant=world.tenant, user__username="nina").role == "viewer"
    page.reload()
    expect(page.locator("#members")).to_contain_text("nina")


def test_cancelling_an_order_asks_first_and_no_keeps_it(page: Page, world: World) -> None:
    order = new_order(world)
    number = int(order.number)
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/orders/{number}/")
    page.get_by_role("button", name="Cancel order…").click()
    expect(page.locator("h1")).to_have_text(f"Cancel order #{number}?")
    assert load_order(world, number).status == "pending"
    page.get_by_role("link", name="No, keep it").click()
    expect(page).to_have_url(re.compile(rf"/orders/{number}/$"))
    assert load_order(world, number).status == "pending"
    page.get_by_role("button", name="Cancel order…").click()
    page.get_by_role("button", name=f"Yes, cancel order #{number}").click()
    expect(page.locator("ul.messages li.success")).to_have_text(f"Order #{number} is now Cancelled.")
    assert load_order(world, number).status == "cancelled"


def test_a_bad_date_range_in_the_orders_filter_is_shown_on_the_page(page: Page, world: World) -> None:
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/orders/")
    page.fill("#order-dates input[name=from]", "2026-05-02")
    page.fill("#order-dates input[name=to]", "2026-05-01")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("alert")).to_contain_text("The end date is before the start date.")
    expect(page.locator("#order-dates input[name=from]")).to_have_value("2026-05-02")
