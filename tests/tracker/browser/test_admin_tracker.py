"""Staff in a real browser on the Tracker views: a tenant's issues to the item, in-flight attachments reconciled."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import attachments
from ddbmodels.attachments import AttachmentItem
from tests.tracker.attachment_helpers import begin_attach
from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.conftest import WorkerFactory, World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

JOB_TIMEOUT_MS = 120_000  # a cold worker process, then the job itself


def test_staff_open_a_tenants_project_see_its_issues_and_open_one_as_an_item(
    page: Page, world: World, other_world: World
) -> None:
    staff_user("ops-tracker", superuser=True)
    new_issue(world, "Checkout times out")
    new_issue(world, "Search ignores accents")
    new_issue(other_world, "Another tenant's secret")

    admin_login(page, "ops-tracker")
    page.locator("#ddb-tracker-links").get_by_role("link", name="Tenants").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/tracker/$"))
    expect(page.locator("#content")).to_contain_text(world.tenant.name)
    expect(page.locator("#content")).to_contain_text(other_world.tenant.name)
    shot(page, "admin-20-tracker-tenants")

    page.get_by_role("link", name=world.tenant.name, exact=True).first.click()
    expect(page).to_have_url(re.compile(rf"/admin/ddb/tracker/t/{re.escape(world.slug)}/$"))
    expect(page.locator(".breadcrumbs")).to_contain_text(world.tenant.name)
    shot(page, "admin-21-tracker-tenant")

    page.get_by_role("link", name="WEB", exact=True).first.click()
    expect(page).to_have_url(re.compile(rf"/admin/ddb/tracker/t/{re.escape(world.slug)}/WEB/$"))
    rows = page.locator("#tracker-issues tr.issue")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator(".issue-title")).to_have_text("Search ignores accents")  # newest first
    expect(rows.nth(1).locator(".issue-title")).to_have_text("Checkout times out")
    expect(page.locator("#next-number")).to_have_text("WEB-3")
    expect(page.locator("#content")).not_to_contain_text("Another tenant's secret")
    shot(page, "admin-22-tracker-project")

    rows.nth(1).get_by_role("link", name="Open item").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/tables/[^/]+/item/\?key="))
    expect(page.locator("#item-json")).to_contain_text("Checkout times out")
    expect(page.locator("#edit-form")).to_have_count(1)  # a superuser may edit it here


def stuck_attachment(world: World, filename: str) -> AttachmentItem:
    """An attachment whose file never arrived, on a new issue 1."""
    new_issue(world, "Has an upload that never finished")
    return begin_attach(world, filename)


@pytest.mark.slow
def test_staff_see_an_attachment_in_flight_reconcile_it_now_and_watch_the_job_finish(
    page: Page, world: World, start_worker: WorkerFactory, tmp_path: Path
) -> None:
    staff_user("ops-reconcile", superuser=True)
    item = stuck_attachment(world, "never-arrived.txt")
    admin_login(page, "ops-reconcile")
    page.locator("#ddb-tracker-links").get_by_role("link", name="Attachments in flight").click()
    row = page.locator(f"#attachment-{item.attachment_id}")
    expect(row).to_contain_text("never-arrived.txt")
    expect(row).to_contain_text("Attaching")
    shot(page, "admin-23-attachments-in-flight")

    # The worker counts anything older than one second as stuck (the setting's minimum).
    start_worker(ATTACHMENT_STUCK_SECONDS="1", MEDIA_ROOT=str(tmp_path / "media"))
    time.sleep(1.1)
    page.get_by_role("button", name="Reconcile now").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/jobs/[0-9a-f-]{36}/$"))
    expect(page.locator("#job-state")).to_have_text("SUCCESS", timeout=JOB_TIMEOUT_MS)
    expect(page.locator("#job-answer")).to_contain_text("1 attachment stuck in flight examined")
    expect(page.locator("#job-json")).to_contain_text('"job": "reconcile_attachments"')
    expect(page.locator("#cap-patterns")).to_contain_text("attachments.reconcile")
    shot(page, "admin-24-reconcile-result")

    stored = attachments.attachment_get_by_key(item.pk, item.attachment_id, consistent=True)
    assert stored is not None
    assert not stored.is_intermediate  # rolled back: out of the index
    page.goto("/admin/ddb/tracker/attachments/")
    expect(page.locator(f"#attachment-{item.attachment_id}")).to_have_count(0)
