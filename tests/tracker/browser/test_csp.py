"""Under the Content-Security-Policy: the site's behaviours work from static files, the admin works,
and Chromium reports no violation on any page visited (the ``violations`` fixture: conftest.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, site_login, staff_user
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.models import Membership

pytestmark = pytest.mark.browser


def test_the_team_switcher_switches_on_its_button_and_not_on_arrow_keys(
    page: Page, world: World, make_world: Callable[..., World], violations: list[str]
) -> None:
    other = make_world()
    Membership.objects.create(user=world.member, tenant=other.tenant, role="member")
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/")
    switcher = page.locator("#tenant-switch")
    switcher.focus()
    page.keyboard.press("ArrowDown")  # a keyboard user moving through the teams…
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(300)
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/$"))  # …stays where they are
    switcher.select_option(other.slug)
    page.wait_for_timeout(300)
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/$"))  # choosing is not switching
    page.locator("form.switcher").get_by_role("button", name="Switch").click()
    expect(page).to_have_url(re.compile(rf"/t/{other.slug}/$"))
    expect(page.locator("h1")).to_contain_text(other.tenant.name)


def test_deleting_an_issue_asks_first_and_a_no_deletes_nothing(page: Page, world: World, violations: list[str]) -> None:
    """The question is a page of its own (what deleting removes: tracker/views/issues.py), no script needed."""
    issue = new_issue(world, "Ask before deleting me")
    site_login(page, world.owner.username)
    page.goto(world.project_url(f"{issue.number}/"))

    page.get_by_role("link", name="Delete issue…").click()
    expect(page.locator("h1")).to_have_text(f"Delete WEB-{issue.number}?")
    page.get_by_role("link", name="No, keep it").click()
    expect(page).to_have_url(re.compile(rf"/p/WEB/{issue.number}/$"))
    stored = load(world, issue.number)
    assert stored is not None
    assert stored.title == "Ask before deleting me"

    page.get_by_role("link", name="Delete issue…").click()
    page.get_by_role("button", name=f"Yes, delete WEB-{issue.number}").click()
    expect(page).not_to_have_url(re.compile(rf"/p/WEB/{issue.number}/"))
    stored = load(world, issue.number)
    assert stored is not None  # a tombstone keeps the number…
    assert stored.title != "Ask before deleting me"  # …but not the content


def test_the_django_admin_and_the_dynamodb_pages_work_under_the_policy(
    page: Page, world: World, violations: list[str]
) -> None:
    staff_user("ops-csp", superuser=True)
    admin_login(page, "ops-csp")
    for url in (
        "/admin/",
        "/admin/tracker/tenant/",
        f"/admin/tracker/tenant/{world.tenant.pk}/change/",
        "/admin/auth/user/add/",
        "/admin/ddb/tables/",
        "/admin/ddb/jobs/",
        "/admin/ddb/capacity/",
        f"/admin/ddb/tracker/t/{world.slug}/",
    ):
        response = page.goto(url)
        assert response is not None, url
        assert response.status == 200, url
        assert "script-src 'self'" in (response.header_value("content-security-policy") or ""), url
