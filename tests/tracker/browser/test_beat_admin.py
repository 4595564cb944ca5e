"""Beat schedules under the staff's job rights in a browser (review blocker 1), at 1280 and 390 px:
a destructive schedule is read only for change_tenant, and adding one is refused in words on the form."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django_celery_beat.models import PeriodicTask
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tracker.schedules import install_defaults

pytestmark = pytest.mark.browser

LIST = "/admin/django_celery_beat/periodictask/"


@pytest.mark.parametrize("width", [1280, 390])
def test_change_tenant_sees_a_destructive_schedule_read_only_and_cannot_add_one(
    page: Page, width: int, violations: list[str]
) -> None:
    install_defaults()
    page.set_viewport_size({"width": width, "height": 900})
    user = staff_user(f"scheduler{width}", perms=("view_tenant", "change_tenant"))
    for codename in ("add_periodictask", "change_periodictask", "view_periodictask"):
        user.user_permissions.add(
            Permission.objects.get(codename=codename, content_type__app_label="django_celery_beat")
        )
    archive = PeriodicTask.objects.get(name="archive event tables")
    admin_login(page, user.username, next_url=f"{LIST}{archive.pk}/change/")
    expect(page.locator("h1")).to_contain_text("View periodic task")
    expect(page.locator("input[name=_save]")).to_have_count(0)
    expect(page.locator(".messagelist .warning")).to_contain_text("audit.run_destructive_jobs")
    shot(page, f"beat-admin-read-only-{width}")

    page.goto(f"{LIST}add/")
    page.fill("#id_name", "offboard acme nightly")
    page.fill("#id_task", "tracker.tasks.offboard_tenant")
    page.select_option("#id_crontab", index=1)
    page.click("input[name=_save]")
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator(".errorlist")).to_contain_text("audit.run_destructive_jobs")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"beat-admin-refused-{width}")
    assert not PeriodicTask.objects.filter(name="offboard acme nightly").exists()
    assert violations == [], "\n".join(violations)  # no Content-Security-Policy report on either page
