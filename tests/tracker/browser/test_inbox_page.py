"""In Chromium at 1280 and 390 px: the inbox reads like the rest of the site.

Only unread rows are bold, the texts are links in the site's colours (underlined on hover, as
the issue lists), the times sit in one right-aligned column of tabular figures, and "Mark all
read" says how many it marked and empties the header's count.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from ddbmodels import inbox
from ddbmodels.core.keys import utcnow
from ddbmodels.events.model import new_sort_key
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
AGES = (timedelta(minutes=2), timedelta(hours=3), timedelta(days=1), timedelta(days=9))
TEXTS = [
    "alice mentioned you on WEB-3: this is only a test of the deploy script on staging, please look",
    "alice moved WEB-1 “Checkout times out” from Open to In progress",
    "bob edited the description of WEB-2 “Login page”: “Steps: open the page, wait”",
    "carol commented on WEB-1: ok",
]


def seed(world: World, username: str) -> list[str]:
    """Four notifications at ragged times (minutes to days ago); the oldest one read."""
    now, keys = utcnow(), []
    for age, text in zip(AGES, TEXTS, strict=True):
        key = new_sort_key(now - age)
        number = int(text.split("WEB-")[1].split(":")[0].split(" ")[0])
        note = inbox.Note(
            username=username, project_key="WEB", number=number, actor=text.split()[0], kind="issue.edited", text=text
        )
        inbox.deliver(tenant=world.slug, event_key=key, notes=[note], when=now - age)
        keys.append(key)
    assert inbox.mark_read(tenant=world.slug, username=username, event_key=keys[-1])
    return keys


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_inbox_bolds_unread_rows_only_and_aligns_the_times(
    page: Page, world: World, viewport: ViewportSize
) -> None:
    seed(world, world.member.username)
    page.set_viewport_size(viewport)
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/inbox/")

    rows = page.locator("ol.inbox li")
    expect(rows).to_have_count(4)
    expect(page.locator("ol.inbox li.unread")).to_have_count(3)
    weights = [int(row.locator("button.note").evaluate("a => getComputedStyle(a).fontWeight")) for row in rows.all()]
    assert weights == [600, 600, 600, 400]
    decorations = {
        row.locator("button.note").evaluate("a => getComputedStyle(a).textDecorationLine") for row in rows.all()
    }
    assert decorations == {"none"}, decorations  # underlined on hover only, as the issue lists' titles
    colours = {row.locator("button.note").evaluate("a => getComputedStyle(a).color") for row in rows.all()}
    assert len(colours) == 1, colours

    times = page.locator("ol.inbox li time")
    assert {t.evaluate("n => getComputedStyle(n).fontVariantNumeric") for t in times.all()} == {"tabular-nums"}
    rights = {round(t.evaluate("n => n.getBoundingClientRect().right")) for t in times.all()}
    assert len(rights) == 1, rights  # one column, right-aligned
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= viewport["width"]
    shot(page, f"inbox-{viewport['width']}")


def test_mark_all_read_says_how_many_and_empties_the_count(page: Page, world: World) -> None:
    seed(world, world.member.username)
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/inbox/")
    header_link = page.locator("header.top").get_by_role("link", name="Inbox")
    expect(header_link).to_contain_text("3")

    page.get_by_role("button", name="Mark all read").click()

    expect(page.locator(".messages")).to_contain_text("Marked 3 notifications read.")
    expect(header_link).to_have_text("Inbox")
    expect(page.locator("ol.inbox li.unread")).to_have_count(0)
    expect(page.get_by_role("button", name="Mark all read")).to_have_count(0)
    shot(page, "inbox-marked-read-1280")
