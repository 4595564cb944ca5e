"""How issue 21's pages look in Chromium at 1280 and 390 px: things a team would find broken.

A list's card on a phone shows whole label chips (never half a chip) and a short "updated" time
that stays inside the card; the issue page moves an issue one way only (the status quick form);
a milestone's progress bar has a light track, not a black one.
"""

from __future__ import annotations

import base64
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import milestones
from ddbmodels.core.keys import utcnow
from tests.conftest import MovingClock
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/G")  # noqa: S108  (copies for the person reviewing the pages)
PHONE = {"width": 390, "height": 844}
LABELS = ["accessibility", "backend", "monitoring", "security", "ui"]


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def test_a_phone_card_shows_whole_label_chips_and_a_short_time_inside_the_card(
    page: Page, world: World, moving_clock: MovingClock
) -> None:
    now = utcnow()
    moving_clock(now - timedelta(hours=11, minutes=12))  # "11 hours, 12 minutes ago": the demo's widest time
    for n in range(3):
        new_issue(world, f"Checkout step {n} fails on Safari", labels=LABELS[n:], assignee=world.member.username)
    new_issue(world, "Cart badge shows the wrong count", labels=["bug", "ui"])
    moving_clock(now)
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    site_login(page, world.owner.username)
    for name, url in (("project", world.project_url()), ("team", f"/t/{world.slug}/issues/")):
        page.goto(url)
        expect(page.locator("table.issues tbody tr")).to_have_count(4)
        _shot(page, f"looks-cards-{name}")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"{name}: wider than a phone"
        times = page.locator("table.issues td[data-label=Updated]").all_inner_texts()
        assert all(re.fullmatch(r"\d+[\s\xa0]hours? ago", t.strip()) for t in times), times
        cards = page.evaluate(
            """() => Array.from(document.querySelectorAll('table.issues tbody tr')).map((row) => {
                 const card = row.getBoundingClientRect();
                 const cell = row.querySelector('td[data-label=Labels]').getBoundingClientRect();
                 const cells = Array.from(row.querySelectorAll('td')).filter((td) => td.offsetParent !== null)
                   .map((td) => td.getBoundingClientRect().right <= card.right + 0.5);
                 const chips = Array.from(row.querySelectorAll('td[data-label=Labels] a')).map((a) => {
                   const r = a.getBoundingClientRect();
                   const inside = r.left >= cell.left - 0.5 && r.right <= cell.right + 0.5
                                  && r.top >= cell.top - 0.5 && r.bottom <= cell.bottom + 0.5;
                   const outside = r.right <= cell.left || r.left >= cell.right
                                   || r.top >= cell.bottom || r.bottom <= cell.top;
                   return inside ? 'whole' : (outside ? 'hidden' : 'cut');
                 });
                 return {cells, chips};
               })"""
        )
        for card in cards:
            assert all(card["cells"]), f"{name}: a cell sticks out of its card: {cards}"
            assert "cut" not in card["chips"], f"{name}: a label chip is cut: {cards}"
        assert any("whole" in card["chips"] for card in cards), f"{name}: no chip shown at all: {cards}"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_issue_page_moves_an_issue_one_way_the_status_quick_form(page: Page, world: World, width: int) -> None:
    new_issue(world, "Checkout button does nothing")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    expect(page.locator("#quick-status")).to_be_visible()
    expect(page.get_by_text("Move to:")).to_have_count(0)
    expect(page.locator("button[name=to]")).to_have_count(0)  # the old "Move to:" buttons
    _shot(page, f"looks-issue-page-{width}")
    page.locator("#quick-status").select_option("in_progress")
    page.locator("section.quick").get_by_role("button", name="Move").click()
    expect(page.locator("ul.messages")).to_contain_text("Changed WEB-1")
    expect(page.locator("dl.facts .status")).to_have_text("In progress")
    issue = load(world, 1)
    assert issue is not None
    assert issue.status == "in_progress"


TRACK_PIXEL = """async ([png]) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return Array.from(ctx.getImageData(img.width - 6, Math.floor(img.height / 2), 1, 1).data).slice(0, 3);
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_a_milestone_progress_bar_has_a_light_track(page: Page, world: World, width: int) -> None:
    milestones.milestone_create(tenant=world.slug, project_key="WEB", name="v1.2", due=None, created_by="x")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("milestones/"))
    bar = page.locator("li.milestone progress, .milestone progress").first
    expect(bar).to_be_visible()
    _shot(page, f"looks-milestones-{width}")
    png = base64.b64encode(bar.screenshot()).decode()
    red, green, blue = page.evaluate(TRACK_PIXEL, [png])  # the right end: track, none of it done
    assert min(red, green, blue) >= 200, f"the track is rgb({red}, {green}, {blue}): dark"


def test_a_wide_list_with_tick_boxes_keeps_each_issue_key_on_one_line(page: Page, world: World) -> None:
    for n in range(3):
        new_issue(
            world,
            f"Content-Security-Policy blocks the chat widget after the last deploy, again and again ({n})",
            labels=["bug"],
            assignee=world.member.username,
        )
    page.set_viewport_size({"width": 1280, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url())
    ticks = page.locator("table.issues.pickable td.pick input[type=checkbox]")
    expect(ticks).to_have_count(3)  # the key is not the first cell
    lines = page.locator("table.issues td[data-label=Issue] a").evaluate_all(
        "(links) => links.map((a) => a.getClientRects().length)"
    )
    assert lines == [1, 1, 1], f"a key broken over lines: {lines}"
    _shot(page, "looks-list-1280")


def test_the_views_menu_opened_on_a_phone_reads_at_full_size(page: Page, world: World) -> None:
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    site_login(page, world.member.username)
    page.goto(world.project_url())
    page.locator(".views-menu > summary").click()
    manage = page.locator(".views-menu .menu-panel").get_by_role("link", name="Manage views")
    expect(manage).to_be_in_viewport(ratio=1)
    size = manage.evaluate("(a) => parseFloat(getComputedStyle(a).fontSize)")
    assert size >= 14, f"the menu's links are {size} px: the header's small section size"
    _shot(page, "looks-views-menu-390")


def test_a_page_titles_team_name_wraps_as_one_piece_on_a_phone(page: Page, world: World) -> None:
    world.tenant.name = "Acme Corporation"
    world.tenant.save()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/settings/notifications/")
    small = page.locator("h1 small")
    expect(small).to_have_text("Acme Corporation")
    boxes = small.evaluate("(s) => s.getClientRects().length")
    assert boxes == 1, f"'Acme Corporation' is broken over {boxes} lines of the heading's height"
    _shot(page, "looks-notification-settings-390")
