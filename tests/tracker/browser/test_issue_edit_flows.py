"""Editing an issue in Chromium: what the person did not touch stays as it is, however the browser sends it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.models import Membership, Role

pytestmark = pytest.mark.browser

DESCRIPTION = "Steps:\n\n1. open the cart\n2. press **Pay**\n"


def test_a_title_edit_in_the_browser_keeps_a_viewer_assignee_and_the_description(page: Page, world: World) -> None:
    member = world.member.username
    issue = new_issue(world, "Pay button hidden", assignee=member, description=DESCRIPTION, labels=["ui"])
    Membership.objects.filter(tenant=world.tenant, user=world.member).update(role=Role.VIEWER)
    site_login(page, world.owner.username)
    page.goto(world.project_url(f"{int(issue.number)}/edit/"))
    expect(page.locator("#id_assignee option:checked")).to_have_text(f"{member} (viewer now — can't be newly assigned)")
    expect(page.get_by_text(f"{member} is a viewer now: they stay assigned until someone changes it")).to_be_visible()
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"issue-edit-kept-assignee-{width}")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.fill("#id_title", "Pay button hidden on small screens")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("h1")).to_contain_text("Pay button hidden on small screens")
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.assignee, after.description, after.labels) == (member, DESCRIPTION, {"ui"})
    history = page.locator("#history").inner_text()
    assert "unassigned" not in history
    assert "edited the description" not in history


def test_a_title_edit_in_the_browser_does_not_touch_a_multi_line_description(page: Page, world: World) -> None:
    """Chromium sends a textarea's line breaks as CRLF: the text is the same, and nothing says it was edited."""
    issue = new_issue(world, "Refund e-mail late", description=DESCRIPTION)
    site_login(page, world.member.username)
    page.goto(world.project_url(f"{int(issue.number)}/edit/"))
    page.fill("#id_title", "Refund e-mail late by a day")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("h1")).to_contain_text("Refund e-mail late by a day")
    after = load(world, int(issue.number))
    assert after is not None
    assert after.description == DESCRIPTION
    assert "edited the description" not in page.locator("#history").inner_text()
