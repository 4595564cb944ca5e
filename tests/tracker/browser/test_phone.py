"""No end-user page is wider than a phone: every page at 390×844 (and at desktop size) has no sideways scroll.

And a phone shows a list: the header at most 64 px tall, an issue a card of two lines, six of them
on a 390×844 screen below the header.

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
from playwright.sync_api import Page, ViewportSize, expect

from ddbmodels import inbox
from ddbmodels import issues as ddb_projects
from ddbmodels.core.keys import utcnow
from ddbmodels.events.model import new_sort_key
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


HEADER_MAX = 64  # px: the site header at 390 px, two short rows
CARD_MAX = 70  # px: an issue card of two lines (title; key, status, assignee, …) with its padding and border


def line_tops(page: Page, card: str) -> list[list[int]]:
    """For each card, the distinct heights (tops) at which its visible text sits: one per line (text an
    overflow:hidden box clips away entirely is not visible)."""
    return page.evaluate(
        """(selector) => Array.from(document.querySelectorAll(selector)).map((card) => {
             const tops = new Set();
             const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
             for (let node = walker.nextNode(); node; node = walker.nextNode()) {
               if (!node.data.trim()) continue;
               const range = document.createRange();
               range.selectNodeContents(node);
               // text clipped away by an overflow:hidden box (a card's label chips that did not fit) is not seen
               const clips = [];
               for (let box = node.parentElement; box && box !== card.parentElement; box = box.parentElement) {
                 if (getComputedStyle(box).overflow !== 'visible') clips.push(box.getBoundingClientRect());
               }
               const seen = (r) => clips.every((c) => r.bottom > c.top && r.top < c.bottom
                                                      && r.right > c.left && r.left < c.right);
               for (const r of range.getClientRects()) {
                 if (r.width > 0 && seen(r)) tops.add(Math.round(r.top + r.height / 2));
               }
             }
             // text on one line at slightly different heights (a badge, a smaller font) is one line
             const sorted = Array.from(tops).sort((a, b) => a - b);
             return sorted.filter((top, i) => i === 0 || top - sorted[i - 1] > 8);
           })""",
        card,
    )


def test_a_phone_shows_six_issue_cards_of_two_lines_under_a_short_header(page: Page, awkward: World) -> None:
    world = awkward
    for n in range(4):
        new_issue(world, f"Deploy pipeline {n}: cache the node modules between runs", labels=["ci", "performance"])
    page.set_viewport_size(PHONE)
    site_login(page, world.owner.username)
    for name, url in (("project", world.project_url()), ("team", f"/t/{world.slug}/issues/")):
        page.goto(url)
        header = page.locator("header.top").bounding_box()
        assert header is not None
        assert header["height"] <= HEADER_MAX, f"{name}: the header is {header['height']} px tall"
        cards = page.locator("table.issues tbody tr")
        assert cards.count() >= 6
        heights = [box["height"] for box in (c.bounding_box() for c in cards.all()) if box is not None]
        assert max(heights) <= CARD_MAX, f"{name}: cards of {heights} px"
        lines = line_tops(page, "table.issues tbody tr")
        assert all(len(card) <= 2 for card in lines), f"{name}: cards of {[len(c) for c in lines]} lines"
        pitch = cards.nth(1).bounding_box()["y"] - cards.nth(0).bounding_box()["y"]  # type: ignore[index]
        assert 6 * pitch <= PHONE["height"] - header["height"], f"{name}: a card every {pitch} px"
        tabs = [t.bounding_box() for t in page.locator("nav.tabs a").all()]
        assert len(tabs) == 4
        assert all(t is not None and t["x"] + t["width"] <= PHONE["width"] for t in tabs), f"{name}: a tab is off"
        # What a card shows: key, title, status, assignee; a tap on the card opens the issue.
        first = cards.first
        for label in ("Issue", "Title", "Status", "Assignee"):
            assert first.locator(f"td[data-label={label}]").is_visible()
        shot(page, f"phone-cards-{name}")
        assert_fits(page, f"cards-{name}", PHONE)
    target = page.locator("table.issues tbody tr").first
    key = target.locator("td[data-label=Issue] a").inner_text()
    box = target.locator("td[data-label=Title]").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 10, box["y"] + box["height"] / 2)  # on the title, not on the key
    page.wait_for_url(f"**/p/{key.replace('-', '/')}/")


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_the_header_is_at_most_64_px_tall_on_a_phone_on_every_team_page(page: Page, world: World, who: str) -> None:
    user = world.owner
    if who == "staff":
        user.is_staff = True
        user.save()
    page.set_viewport_size(PHONE)
    site_login(page, user.username)
    for path in ("", "p/WEB/", "issues/", "orders/", "leaderboard/", "team/"):
        page.goto(f"/t/{world.slug}/{path}")
        header = page.locator("header.top")
        height = header.bounding_box()["height"]  # type: ignore[index]
        assert height <= HEADER_MAX, f"{path or 'projects'}: {height} px"
        for name in ("Inbox", "Projects", "My issues", "Orders", "Leaderboard", "Team"):
            link = header.get_by_role("link", name=name, exact=True)
            box = link.bounding_box()
            nav = link.locator("xpath=..").bounding_box()
            assert box is not None
            assert nav is not None
            if who == "owner":  # all of it in sight, not scrolled away (staff: Admin takes some room)
                assert box["x"] + box["width"] <= nav["x"] + nav["width"] + 1, f"{name} is cut off"
                assert box["x"] + box["width"] <= PHONE["width"], f"{name} is off the screen"
        expect(header.get_by_role("button", name="Log out")).to_be_in_viewport()
        if who == "owner":  # the sections' row ends with "Go to" and the Views menu: not cut, not scrolled away
            need, room = page.locator(".top .sections").evaluate("(s) => [s.scrollWidth, s.clientWidth]")
            assert need <= room, f"{path or 'projects'}: the sections need {need} px of {room}"
            expect(header.get_by_role("link", name="Go to", exact=True)).to_be_in_viewport(ratio=1)
            expect(header.locator(".views-menu > summary")).to_be_in_viewport(ratio=1)
        if who == "staff":
            expect(header.get_by_role("link", name="Admin")).to_be_in_viewport()
        assert_fits(page, f"header-{path}", PHONE)
    shot(page, f"phone-header-{who}")


def test_other_lists_cards_put_their_cells_side_by_side_on_a_phone(page: Page, awkward: World) -> None:
    page.set_viewport_size(PHONE)
    site_login(page, awkward.owner.username)
    for name, path in (("projects", ""), ("orders", "orders/"), ("team", "team/")):
        page.goto(f"/t/{awkward.slug}/{path}")
        # per card: (its cells, the rows they start on); cells starting within 8 px share a row
        cards = page.evaluate(
            """() => Array.from(document.querySelectorAll('table.list.cards tbody tr')).map((row) => {
                 const tops = Array.from(row.querySelectorAll('td:not(:empty)'))
                   .map((td) => Math.round(td.getBoundingClientRect().top)).sort((a, b) => a - b);
                 return [tops.length, tops.filter((top, i) => i === 0 || top - tops[i - 1] > 8).length];
               })"""
        )
        assert cards, f"{name}: no cards"
        # a row per column was the old card (seven rows an order); cells share rows now
        assert all(rows < cells for cells, rows in cards), f"{name}: (cells, rows) {cards}"
        if name == "orders":
            assert all(rows <= 5 for _, rows in cards), cards


def test_the_header_stays_two_rows_with_a_long_team_name_and_unread_notifications(page: Page, world: World) -> None:
    # "Acme Corp · Owner" and "Inbox 9" pushed Log out onto a third row (87 px) in the demo
    world.tenant.name = "Acme Corporation Worldwide"
    world.tenant.save()
    for n in range(12):
        note = inbox.Note(
            username=world.owner.username, project_key="WEB", number=1, actor="bob", kind="k", text=f"change {n}"
        )
        inbox.deliver(tenant=world.slug, event_key=new_sort_key(utcnow()), notes=[note])
    page.set_viewport_size(PHONE)
    site_login(page, world.owner.username)
    page.goto(world.project_url())
    header = page.locator("header.top")
    expect(header.get_by_role("link", name="Inbox")).to_contain_text("12")
    height = header.bounding_box()["height"]  # type: ignore[index]
    assert height <= HEADER_MAX, f"{height} px"
    expect(header.get_by_role("button", name="Log out")).to_be_in_viewport()
    shot(page, "phone-header-unread")
