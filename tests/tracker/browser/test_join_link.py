"""In a real browser: an invitation link /t/<team>/team/join/#<token> joins the team, and its token reaches the
server in no URL and no Referer; without JavaScript the code is pasted; a link whose creator stepped down says why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Request, ViewportSize, expect
from pytest_django.live_server_helper import LiveServer

from tests.tracker.browser.conftest import TIMEOUT_MS
from tests.tracker.conftest import World
from tracker.models import Membership
from tracker.services.team import invitation_create

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/g3")  # noqa: S108  (where the reviewers look at this helper's screenshots)
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
VIEWPORTS = [pytest.param(DESKTOP, id="1280"), pytest.param(PHONE, id="390")]


def snap(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{page.viewport_size['width'] if page.viewport_size else 0}.png"))


def fits(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= (page.viewport_size or DESKTOP)["width"], f"{page.url} is {width} px wide"


def new_link(world: World, role: str = "member") -> tuple[str, str]:
    """An invitation of the world's owner: the link as the team page shows it (path#token), and the token."""
    _, token = invitation_create(membership=Membership.objects.get(user=world.owner, tenant=world.tenant), role=role)
    return f"/t/{world.slug}/team/join/#{token}", token


def stranger(browser: Browser, live_server: LiveServer, viewport: ViewportSize, *, javascript: bool = True) -> Page:
    context = browser.new_context(base_url=live_server.url, viewport=viewport, java_script_enabled=javascript)
    context.set_default_timeout(TIMEOUT_MS)
    return context.new_page()


def sign_up(page: Page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password1", "a-long-pass-417")
    page.fill("#id_password2", "a-long-pass-417")
    page.get_by_role("button", name="Create my account and join").click()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_link_joins_and_its_token_reaches_the_server_in_no_url(
    browser: Browser, live_server: LiveServer, world: World, viewport: ViewportSize
) -> None:
    link, token = new_link(world, role="viewer")
    page = stranger(browser, live_server, viewport)
    seen: list[str] = []

    def record(request: Request) -> None:
        seen.extend([request.url, request.headers.get("referer", "")])

    page.on("request", record)
    page.on("pageerror", lambda error: pytest.fail(f"JavaScript error: {error}"))
    try:
        page.goto(link)
        expect(page.locator("h1")).to_have_text(f"Join {world.tenant.name}")
        assert "#" not in page.url  # the code is out of the address bar and history
        assert token not in page.url
        expect(page.get_by_text(f"You are invited as a viewer of {world.tenant.name}.")).to_be_visible()
        fits(page)
        snap(page, "join-page")
        sign_up(page, "nina")
        expect(page).to_have_url(re.compile(rf"/t/{world.slug}/$"))
        expect(page.locator("header.top .who")).to_have_text("nina")
        expect(page.locator("ul.messages li.success")).to_have_text(f"Welcome to {world.tenant.name}.")
        snap(page, "joined")
        page.go_back()
        page.go_back()
        assert token not in page.url
    finally:
        page.context.close()
    assert Membership.objects.get(tenant=world.tenant, user__username="nina").role == "viewer"
    assert seen
    assert not [url for url in seen if token in url], seen


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_without_javascript_the_code_is_pasted(
    browser: Browser, live_server: LiveServer, world: World, viewport: ViewportSize
) -> None:
    link, _ = new_link(world)
    page = stranger(browser, live_server, viewport, javascript=False)
    try:
        page.goto(link)
        expect(page.locator("h1")).to_have_text("Open your invitation")
        fits(page)
        snap(page, "paste-code")
        page.get_by_label("Invitation code").fill(f"{live_server.url}{link}")  # the whole link will do
        page.get_by_role("button", name="Open the invitation").click()
        expect(page.locator("h1")).to_have_text(f"Join {world.tenant.name}")
        sign_up(page, "omar")
        expect(page).to_have_url(re.compile(rf"/t/{world.slug}/$"))
    finally:
        page.context.close()
    assert Membership.objects.get(tenant=world.tenant, user__username="omar").role == "member"


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_link_of_an_owner_who_stepped_down_says_why(
    browser: Browser, live_server: LiveServer, world: World, viewport: ViewportSize
) -> None:
    link, _ = new_link(world, role="owner")
    Membership.objects.filter(tenant=world.tenant, user=world.member).update(role="owner")
    Membership.objects.filter(tenant=world.tenant, user=world.owner).update(role="member")  # no receivers: a race
    page = stranger(browser, live_server, viewport)
    try:
        page.goto(link)
        expect(page.locator("h1")).to_have_text("This link cannot be used")
        expect(page.locator(".refusal")).to_have_text(
            f"The person who sent this invitation is no longer an owner of {world.tenant.name}, so it no longer "
            "works. Ask an owner of the team for a new one."
        )
        fits(page)
        snap(page, "refused")
    finally:
        page.context.close()
    assert Membership.objects.filter(tenant=world.tenant).count() == 3  # nobody joined
