"""An end user in a real browser: log in, create an issue, attach a file, place an order, leaderboard."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels.attachments import ATTACHED
from tests.tracker.attachment_helpers import files_in, only_item
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load
from tests.tracker.orders_helpers import load_order

pytestmark = pytest.mark.browser

NOTES = b"Steps to reproduce:\n1. open the login page\n2. press Enter\n"


def test_a_member_creates_an_issue_attaches_a_file_orders_and_reaches_the_leaderboard(
    page: Page, world: World, media: Path, tmp_path: Path
) -> None:
    member = world.member.username
    site_login(page, member)
    # Home sends a member of one tenant to its projects.
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/$"))
    expect(page.locator("h1")).to_contain_text(world.tenant.name)
    shot(page, "site-01-projects")

    page.get_by_role("link", name="WEB", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/$"))
    page.get_by_role("link", name="New issue").click()
    page.fill("#id_title", "The login page rejects Enter")
    page.fill("#id_description", "Pressing Enter in the password field does nothing.")
    page.select_option("#id_priority", "high")
    page.get_by_role("combobox", name="Assignee").fill(member)  # the assignee box (autocomplete.js) sets the select
    page.fill("#id_labels", "bug, login")
    shot(page, "site-02-new-issue")
    page.get_by_role("button", name="Create issue").click()

    # The first issue of the project gets number 1, shown as its reference WEB-1.
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/1/$"))
    expect(page.locator("ul.messages li.success")).to_have_text("Created WEB-1.")
    expect(page.locator("h1 .ref")).to_have_text("WEB-1")
    expect(page.locator("h1")).to_contain_text("The login page rejects Enter")
    expect(page.locator("dl.facts")).to_contain_text("High")
    issue = load(world, 1)
    assert issue is not None
    assert (issue.title, issue.priority, issue.assignee, issue.reporter) == (
        "The login page rejects Enter",
        "high",
        member,
        member,
    )
    assert set(issue.labels or ()) == {"bug", "login"}
    shot(page, "site-03-issue")

    # Attach a file through the issue page's multipart form.
    upload = tmp_path / "steps.txt"
    upload.write_bytes(NOTES)
    page.set_input_files("#attachments input[type=file]", str(upload))
    page.get_by_role("button", name="Attach file").click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/p/WEB/1/$"))
    expect(page.locator("ul.messages li.success")).to_have_text(f"Attached steps.txt ({len(NOTES)}\xa0bytes).")
    link = page.locator("#attachments table").get_by_role("link", name="steps.txt")
    expect(link).to_be_visible()
    item = only_item(world)
    assert (item.state, item.filename, int(item.size), item.attached_by) == (ATTACHED, "steps.txt", len(NOTES), member)
    assert files_in(media) == [f"attachments/{world.slug}/WEB/1/{item.attachment_id}/steps.txt"]
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename == "steps.txt"
    assert Path(download.path()).read_bytes() == NOTES
    expect(page.locator("section.activity")).to_contain_text("attached steps.txt")
    shot(page, "site-04-issue-with-attachment")

    # Resolve it: points for the assignee (the member) on the leaderboard (high = 3 points).
    page.locator("#quick-status").select_option("resolved")
    page.locator("section.quick").get_by_role("button", name="Move").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Changed WEB-1: now Resolved.")
    expect(page.locator("dl.facts .status")).to_have_text("Resolved")

    # Place an order.
    page.locator("nav.sections").get_by_role("link", name="Orders").click()
    page.get_by_role("link", name="Place an order").click()
    page.select_option("#id_product", "seats")
    page.fill("#id_quantity", "3")
    page.select_option("#id_delivery", "expedited")
    shot(page, "site-05-order-form")
    page.get_by_role("button", name="Place order").click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/orders/\d+/$"))
    number = int(page.url.rstrip("/").rsplit("/", 1)[1])
    expect(page.locator("ul.messages li.success")).to_have_text(f"Placed order #{number}.")
    expect(page.locator("h1")).to_have_text(f"Order #{number}")
    expect(page.locator("dl.facts")).to_contain_text("Seats")
    expect(page.locator("dl.facts")).to_contain_text("Pending")
    order = load_order(world, number)
    assert (order.product, order.quantity, order.delivery, order.placed_by) == ("seats", 3, "expedited", member)
    shot(page, "site-06-order")
    page.locator("nav.crumbs").get_by_role("link", name="Orders").click()
    expect(page.locator("table.list")).to_contain_text(f"#{number}")

    # The leaderboard: the member is on it, first, with the resolved issue's points.
    page.locator("nav.sections").get_by_role("link", name="Leaderboard").click()
    expect(page).to_have_url(re.compile(rf"/t/{world.slug}/leaderboard/$"))
    mine = page.locator('table.list tr[aria-current="true"]')
    expect(mine).to_have_count(1)
    expect(mine.locator("td")).to_have_text(["1", f"{member} (you)", "3"])
    expect(page.locator("#standing")).to_contain_text("You have 3 points: place #1.")
    shot(page, "site-07-leaderboard")
