"""The admin pages in a real browser at 1280 and 390 px: a job's answer first, table names that look like links,
the read-only index, Capacity's code as code. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.test_admin_job_results import KEYS, distinct_keys_run
from tracker.views.admin import jobs as job_views

pytestmark = pytest.mark.browser
WIDTHS = (1280, 390)


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_a_finished_distinct_keys_job_shows_its_answer_then_the_keys_and_folds_the_json(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = uuid.uuid4()
    status = {"task_id": str(task_id), "state": "SUCCESS", "ready": True, "result": distinct_keys_run()}
    monkeypatch.setattr(job_views, "job_status", lambda *, task_id: status)
    monkeypatch.setattr(job_views, "job_task_name", lambda *, task_id: "tracker.tasks.distinct_keys")
    staff_user("ops-answer", superuser=True)
    admin_login(page, "ops-answer")
    page.goto(f"/admin/ddb/jobs/{task_id}/")
    answer = page.locator("#job-answer")
    expect(answer).to_have_text("7 distinct partition keys in tracker-issues found by skip scan, 12.5 RCU, 0.812 s")
    expect(page.locator("#job-items li")).to_have_text(KEYS)
    expect(page.locator("#job-json")).to_be_hidden()  # folded
    page.locator("#job-json-details summary").click()
    expect(page.locator("#job-json")).to_be_visible()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"admin-job-answer-{width}")
        answer_box = answer.bounding_box()
        assert answer_box is not None
        assert answer_box["y"] < 400  # the first thing read under the header


def test_table_names_are_underlined_links_and_partitions_are_explained_once(page: Page) -> None:
    staff_user("ops-tables", superuser=True)
    admin_login(page, "ops-tables")
    page.goto("/admin/ddb/tables/")
    link = page.locator(".ddb-table caption a").first
    assert "underline" in link.evaluate("a => getComputedStyle(a).textDecorationLine")
    expect(page.get_by_text("no fixed throughput is shared out")).to_have_count(1)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"admin-tables-{width}")


def test_read_only_staff_are_offered_what_they_can_do(page: Page) -> None:
    staff_user("ops-reader", perms=("view_tenant",))
    admin_login(page, "ops-reader")
    expect(page.locator("#ddb-module")).to_contain_text("browse; read only")
    expect(page.locator("#content-main")).not_to_contain_text("Start a job")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"admin-index-read-only-{width}")
    page.goto("/admin/ddb/jobs/")
    expect(page.locator(".ddb-job-form")).to_have_count(0)
    page.set_viewport_size({"width": 1280, "height": 900})
    shot(page, "admin-jobs-read-only-1280")


def test_the_capacity_page_shows_code_as_code(page: Page) -> None:
    staff_user("ops-capacity", superuser=True)
    admin_login(page, "ops-capacity")
    page.goto("/admin/ddb/capacity/")
    expect(page.locator("#content-main")).not_to_contain_text("``")
    page.locator(".ddb-not-run summary").first.click()
    expect(page.locator(".ddb-not-run li code").first).to_be_visible()
    assert page.locator(".ddb-not-run li").first.evaluate("li => li.innerHTML.includes('<code>')")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"admin-capacity-{width}")
