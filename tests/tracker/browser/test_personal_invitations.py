"""In a real browser, at 1280 and 390 px: an owner invites someone who has an account, who accepts (finding 3)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.tracker.browser.helpers import PASSWORD, shot, site_login
from tests.tracker.conftest import World
from tracker.models import Invitation, Membership, RetiredSlug
from tracker.services.addresses import address_mark_confirmed

pytestmark = pytest.mark.browser


def snap(page: Page, name: str) -> None:
    shot(page, f"personal-invitation-{name}")


@pytest.mark.parametrize("width", [1280, 390])
def test_an_owner_invites_someone_with_an_account_who_accepts_and_joins(
    page: Page, world: World, browser: Browser, live_server: LiveServer, width: int
) -> None:
    zoe = User.objects.create_user("zoe", email="zoe@example.org", password=PASSWORD)
    address_mark_confirmed(user=zoe)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/team/")
    form = page.locator("form#add-member")
    form.get_by_label("Username or e-mail").fill("zoe@example.org")
    form.get_by_label("Role").select_option("viewer")
    form.get_by_role("button", name="Invite to the team").click()
    expect(page.locator("ul.messages li.success")).to_have_text(
        "If that person has an account with a confirmed e-mail address, they have been invited to join "
        f"{world.tenant.name} as viewer. They join only when they accept."
    )
    expect(page.locator("#asked")).to_contain_text("“zoe@example.org” as viewer")
    expect(page.locator("#members")).not_to_contain_text("zoe")
    snap(page, f"01-owner-invited-{width}")
    assert not Membership.objects.filter(tenant=world.tenant, user=zoe).exists()

    invitee = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 900}).new_page()
    try:
        site_login(invitee, "zoe")
        expect(invitee.locator("h1")).to_have_text("No team yet")
        invitee.locator("#invitations-link").click()
        expect(invitee).to_have_url(re.compile(r"/invitations/$"))
        expect(invitee.locator("#received")).to_contain_text(f"{world.tenant.name} invites you as a viewer")
        snap(invitee, f"02-invitee-invitations-{width}")
        invitee.get_by_role("button", name="Accept").click()
        expect(invitee).to_have_url(re.compile(rf"/t/{world.slug}/$"))
        expect(invitee.locator("ul.messages li.success")).to_have_text(f"Welcome to {world.tenant.name}.")
        expect(invitee.locator("#invitations-link")).to_have_count(0)
        snap(invitee, f"03-invitee-joined-{width}")
    finally:
        invitee.context.close()
    assert Membership.objects.get(tenant=world.tenant, user=zoe).role == "viewer"
    page.reload()
    expect(page.locator("#members")).to_contain_text("zoe")
    expect(page.locator("#asked")).to_have_count(0)
    snap(page, f"04-owner-sees-member-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_an_owner_of_a_team_being_offboarded_is_told_no_link_was_made(page: Page, world: World, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/team/")
    RetiredSlug.objects.create(slug=world.slug, reason=RetiredSlug.Reason.OFFBOARDING)  # begun meanwhile
    form = page.locator("form#invite")
    form.get_by_role("button", name="Create an invitation link").click()
    expect(page.locator("form#invite .errorlist")).to_have_text(
        f"{world.tenant.name} has closed its space on Tracker: nobody can join it any more."
    )
    form.scroll_into_view_if_needed()
    snap(page, f"04-team-closing-no-link-{width}")
    assert not Invitation.objects.filter(tenant=world.tenant).exists()
