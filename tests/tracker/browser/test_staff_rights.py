"""Staff rights in a browser (issue 20, finding 4): the Jobs page offers change_tenant only the read-only jobs;
the staff audit lists who changed what, at 1280 and 390 px."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tracker.audit.models import AuditEntry
from tracker.services.admin.audit import Action, audit_begin, audited

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_change_tenant_is_offered_the_read_only_jobs_and_the_audit_shows_who_changed_what(
    page: Page, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    renamer = staff_user(f"renamer{width}", perms=("view_tenant", "change_tenant"))
    admin_login(page, renamer.username, next_url="/admin/ddb/jobs/")
    expect(page.locator("form.ddb-job-form")).to_have_count(2)
    expect(page.locator("#job-distinct_keys")).to_be_visible()
    expect(page.locator("#job-archive")).to_have_count(0)
    expect(page.locator("#jobs-not-offered")).to_contain_text("audit.run_destructive_jobs")
    shot(page, f"staff-rights-jobs-change-tenant-{width}")

    renamer.user_permissions.add(
        Permission.objects.get(codename="run_destructive_jobs", content_type__app_label="audit")
    )
    page.reload()
    expect(page.locator("form.ddb-job-form")).to_have_count(7)
    expect(page.locator("#jobs-not-offered")).to_have_count(0)

    entry = audit_begin(
        by=renamer,
        action=Action.ITEM_CHANGE,
        target='issues {"n":{"N":"1"},"pk":{"S":"acme#WEB"}}',
        tenant="acme",
        details={"changes": {"t": {"old": {"S": "Before"}, "new": {"S": "After"}}, "ds": {"old_size": 300}}},
    )
    with audited(entry):
        pass
    page.goto("/admin/audit/auditentry/")
    row = page.locator("#result_list tbody tr").first
    expect(row).to_contain_text(renamer.username)
    expect(row).to_contain_text("Item edited")
    shot(page, f"staff-rights-audit-list-{width}")
    page.goto(f"/admin/audit/auditentry/{entry.pk}/change/")
    expect(page.locator("pre")).to_contain_text('"old_size": 300')
    expect(page.locator("input[type=submit]")).to_have_count(0)  # read only: nothing to save or delete
    shot(page, f"staff-rights-audit-entry-{width}")
    assert AuditEntry.objects.get(pk=entry.pk).outcome == "done"
