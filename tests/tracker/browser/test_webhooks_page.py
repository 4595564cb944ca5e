"""In a real browser, at 1280 and 390 px: an owner registers a webhook (the secret shown once, whole on screen),
opens it, sees its delivery log with Redeliver, disables it and deletes it (confirming)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Dialog, Page, expect

from ddbmodels import webhooks as ddb_webhooks
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/F")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _fits(page: Page, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide at {width}"


@pytest.mark.parametrize("width", [1280, 390])
def test_an_owner_registers_a_webhook_reads_its_log_disables_and_deletes_it(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.owner.username)
    page.goto(world.url("settings/webhooks/"))
    expect(page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
    page.get_by_label("Payload URL").fill("http://127.0.0.1:9/hook")
    page.get_by_label("issue.created").check()
    page.get_by_label("comment.created").check()
    page.get_by_label("Description").fill("Nightly CI")
    _fits(page, width)
    _shot(page, f"webhooks-01-form-{width}")
    page.get_by_role("button", name="Register").click()

    secret = page.locator("#webhook-secret")
    expect(secret).to_have_text(re.compile(r"^whsec_[A-Za-z0-9+/=]{44}$"))
    box = secret.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= width  # the whole secret is on the screen, to select and copy
    _fits(page, width)
    _shot(page, f"webhooks-02-secret-{width}")
    (endpoint,) = ddb_webhooks.endpoints_of(world.slug, consistent=True)
    assert secret.inner_text() == endpoint.secret
    issue = {"key": "WEB-1", "title": "A title long enough to need wrapping on a phone", "status": "open"}
    body = json.dumps({"type": "issue.created", "data": {"team": world.slug, "issue": issue}}, separators=(",", ":"))
    put_delivery(world.slug, endpoint.id, event_key(1), pending=False, payload=body)
    put_delivery(world.slug, endpoint.id, event_key(2), pending=True)

    page.get_by_role("link", name="Open the webhook").click()
    rows = page.locator("table.deliveries tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Sending")
    expect(rows.nth(1)).to_contain_text("Delivered")
    expect(rows.nth(1)).to_contain_text("204 in 12 ms")
    rows.nth(1).get_by_text("Body sent").click()
    expect(rows.nth(1).locator("pre")).to_contain_text('"key":"WEB-1"')
    _fits(page, width)
    _shot(page, f"webhooks-03-detail-{width}")
    rows.nth(1).get_by_role("button", name="Redeliver").click()
    expect(page.locator(".messages, [role=status], .flash").first).to_contain_text("Sending it again within a minute")

    page.get_by_role("button", name="Disable").click()
    expect(page.get_by_role("button", name="Enable")).to_be_visible()
    expect(page.locator("p.text")).to_contain_text("Disabled by")
    page.once("dialog", lambda dialog: dialog.accept() if isinstance(dialog, Dialog) else None)
    page.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(r"/settings/webhooks/$"))
    expect(page.get_by_text("No webhook yet")).to_be_visible()
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []
    assert violations == []
