"""In Chromium: a member watches an issue, hears of a change in the header and the inbox (on a phone), opens it.

The fan-out runs as soon as it is queued (the task's own ``.apply()``, in the live server's
process): the worker itself is shown in tests/tracker/test_inbox.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tracker import tasks
from tracker.models import Membership
from tracker.selectors.projects import project_access
from tracker.services import issues as issue_services

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture
def fan_out_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    def run(*args: Any, kwargs: dict[str, Any], **options: Any) -> None:
        tasks.fan_out_event.apply(kwargs=kwargs)

    monkeypatch.setattr(tasks.fan_out_event, "apply_async", run)


def test_a_member_watches_hears_of_the_change_and_reads_it_on_a_phone(
    page: Page, world: World, fan_out_at_once: None
) -> None:
    issue = new_issue(world, "Checkout times out for customers paying with a very long card holder name")
    page.set_viewport_size(PHONE)
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/1/")
    page.get_by_role("button", name="Watch").click()
    expect(page.get_by_role("button", name="Unwatch")).to_be_visible()
    expect(page.locator("form.watch")).to_contain_text("1 watching")

    owner = Membership.objects.get(tenant=world.tenant, user=world.owner)
    issue_services.issue_change_status(
        membership=owner,
        project=project_access(tenant=world.tenant, key="WEB"),
        issue=issue,
        expected_version=int(issue.version),
        to="in_progress",
    )

    page.goto(f"/t/{world.slug}/p/WEB/")
    inbox_link = page.locator("header.top").get_by_role("link", name="Inbox")
    expect(inbox_link).to_contain_text("1")
    inbox_link.click()
    item = page.locator("ol.inbox li.unread button.note")
    expect(item).to_have_text(
        f"{world.owner.username} moved WEB-1 “Checkout times out for customers paying with a very long card "
        "holder name” from Open to In progress"
    )
    page.wait_for_load_state()  # the text shows before the stylesheets have arrived on a loaded machine
    expect(item).to_have_css("font-weight", "600")  # unread: bold
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= PHONE["width"]
    shot(page, "phone-inbox")

    item.click()
    expect(page).to_have_url(f"/t/{world.slug}/p/WEB/1/")
    expect(page.locator("header.top").get_by_role("link", name="Inbox")).to_have_text("Inbox")
    page.goto(f"/t/{world.slug}/inbox/")
    expect(page.locator("ol.inbox li.read")).to_have_count(1)
    expect(page.get_by_role("button", name="Mark all read")).to_have_count(0)
