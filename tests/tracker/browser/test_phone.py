"""No end-user page is wider than a phone: every page at 390×844 (and at desktop size) has no sideways scroll.

The data is made to be awkward: a long unbroken URL in a title, a long project name and
description, labels, an order, a file, several people in the team. Each page is opened as the
owner (who sees the most forms and buttons), and the page's width is measured as the browser
lays it out: ``document.documentElement.scrollWidth``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import NoReverseMatch, reverse
from playwright.sync_api import Page, ViewportSize

from ddbmodels import issues as ddb_projects
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import ATTACHMENT_LIMIT, World
from tests.tracker.helpers import new_issue
from tests.tracker.orders_helpers import new_order
from tracker.models import Membership
from tracker.services.team import invitation_create

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
LONG_URL = "https://status.example.com/incidents/2026/11/23/checkout-latency-regression-after-deploy-7f3a9c1e"
LONG_WORD = "Supercalifragilisticexpialidocious-configuration-value-" * 3


def tenant_issue_list(world: World) -> str | None:
    """The team-wide issue list's address, or None while that page does not exist yet."""
    try:
        return reverse("tenant_issues", kwargs={"tenant": world.slug})
    except NoReverseMatch:
        return None


@pytest.fixture
def awkward(world: World, media: Path) -> Iterator[World]:
    """The world with long words everywhere a page shows data."""
    ddb_projects.project_create(
        tenant=world.slug,
        key="DATA",
        name="Data platform and reporting pipelines for every region",
        description=f"Nightly exports; see {LONG_URL} and {LONG_WORD}",
        created_by=world.owner.username,
    )
    new_issue(
        world,
        f"Checkout is slow since {LONG_URL}",
        description=f"Steps: open {LONG_URL}\n{LONG_WORD}",
        assignee=world.member.username,
        labels=["performance", "checkout", "needs-triage"],
        priority="urgent",
    )
    for n in range(3):
        new_issue(
            world, f"Second issue number {n} with a fairly long title that goes on", assignee=world.owner.username
        )
    new_order(world)
    return world


def pages(world: World, order_number: int) -> list[tuple[str, str]]:
    """(name, address) of every end-user page, as the owner reaches them."""
    slug = world.slug
    found = [
        ("projects", f"/t/{slug}/"),
        ("new-project", f"/t/{slug}/projects/new/"),
        ("issue-list", f"/t/{slug}/p/WEB/"),
        ("issue-list-open", f"/t/{slug}/p/WEB/?status=open"),
        ("issue-detail", f"/t/{slug}/p/WEB/1/"),
        ("new-issue", f"/t/{slug}/p/WEB/new/"),
        ("edit-issue", f"/t/{slug}/p/WEB/1/edit/"),
        ("orders", f"/t/{slug}/orders/"),
        ("orders-bad-dates", f"/t/{slug}/orders/?from=2026-05-02&to=2026-05-01"),
        ("order-detail", f"/t/{slug}/orders/{order_number}/"),
        ("new-order", f"/t/{slug}/orders/new/"),
        ("leaderboard", f"/t/{slug}/leaderboard/"),
        ("team", f"/t/{slug}/team/"),
        ("not-found", f"/t/{slug}/p/WEB/999/"),
    ]
    everyone = tenant_issue_list(world)
    if everyone is not None:
        found[4:4] = [("team-issue-list", everyone), ("my-issues", f"{everyone}?assignee=me")]
    for name, url_name in (("inbox", "inbox"), ("activity", "tenant_activity")):  # other people's pages
        with contextlib.suppress(NoReverseMatch):
            found.append((name, reverse(url_name, kwargs={"tenant": slug})))
    return found


def width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def assert_fits(page: Page, name: str, viewport: ViewportSize) -> None:
    wide = width(page)
    if wide > viewport["width"]:
        shot(page, f"too-wide-{viewport['width']}-{name}")
    assert wide <= viewport["width"], f"{name} ({page.url}) is {wide} px wide at {viewport['width']}"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone-390", "desktop-1280"])
def test_no_end_user_page_is_wider_than_the_screen(
    page: Page, awkward: World, viewport: ViewportSize, tmp_path: Path
) -> None:
    world = awkward
    page.set_viewport_size(viewport)
    page.goto("/accounts/login/")
    assert_fits(page, "login", viewport)
    site_login(page, world.owner.username)
    order_number = int(new_order(world).number)
    for name, url in pages(world, order_number):
        response = page.goto(url)
        assert response is not None
        assert response.status in (200, 400, 404), f"{name}: {response.status}"
        assert_fits(page, name, viewport)
        if viewport is PHONE:
            shot(page, f"phone-{name}")

    # Pages reached by a form: the cancel question, a refused upload (the attachments page).
    page.goto(f"/t/{world.slug}/orders/{order_number}/")
    page.get_by_role("button", name="Cancel order…").click()
    page.get_by_role("heading", name=f"Cancel order #{order_number}?").wait_for()
    assert_fits(page, "cancel-order", viewport)
    big = tmp_path / f"{LONG_WORD[:60]}.log"
    big.write_bytes(b"x" * (ATTACHMENT_LIMIT + 1))
    page.goto(f"/t/{world.slug}/p/WEB/1/")
    page.set_input_files("#attachments input[type=file]", str(big))
    page.get_by_role("button", name="Attach file").click()
    page.get_by_role("heading", name="Attach a file to WEB-1").wait_for()
    assert_fits(page, "attachment-refused", viewport)
    if viewport is PHONE:
        shot(page, "phone-attachment-refused")


def test_the_team_issue_list_exists_or_is_skipped_with_its_reason(world: World) -> None:
    if tenant_issue_list(world) is None:
        pytest.skip("/t/<team>/issues/ (URL name tenant_issues) is not there yet: the lead is adding it")
    assert tenant_issue_list(world) == f"/t/{world.slug}/issues/"


def test_the_invitation_and_no_team_pages_fit_a_phone(page: Page, world: World) -> None:
    _, token = invitation_create(
        membership=Membership.objects.get(user=world.owner, tenant=world.tenant), role="member"
    )
    page.set_viewport_size(PHONE)
    page.goto(f"/t/{world.slug}/team/join/{token}/")
    page.get_by_role("heading", name=f"Join {world.tenant.name}").wait_for()
    assert_fits(page, "join", PHONE)
    shot(page, "phone-join")
    User.objects.create_user("loner", password="pw-for-tests")
    site_login(page, "loner")
    page.get_by_role("heading", name="No team yet").wait_for()
    assert_fits(page, "no-team", PHONE)
