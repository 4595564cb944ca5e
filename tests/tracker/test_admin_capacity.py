"""The capacity meter per request (admin footer, Redis aggregate) and the capacity page."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_celery_results.models import TaskResult

from tracker.admin.capacity import page_capacity_list


def staff_user(username: str = "staff") -> User:
    return User.objects.create_user(username, password="pw-for-tests", is_staff=True)


def test_anonymous_visitors_get_the_login_page_not_an_admin_page() -> None:
    for url in ("/admin/ddb/jobs/", "/admin/ddb/capacity/"):
        response = Client().get(url)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


def test_a_user_who_is_not_staff_gets_no_admin_page() -> None:
    client = Client()
    client.force_login(User.objects.create_user("plain", password="pw-for-tests"))
    response = client.get("/admin/ddb/capacity/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_an_admin_page_shows_the_dynamodb_capacity_it_used_in_its_footer() -> None:
    client = Client()
    client.force_login(staff_user())
    # The jobs page lists the endpoint's tables (ListTables): at least one DynamoDB request.
    response = client.get("/admin/ddb/jobs/")
    assert response.status_code == 200
    footer = re.search(r'class="ddb-requests">(\d+)<', response.content.decode())
    assert footer is not None
    assert int(footer.group(1)) >= 1
    assert 'class="ddb-rcu">' in response.content.decode()


def test_each_request_adds_its_capacity_to_the_rolling_aggregate_by_url_name() -> None:
    client = Client()
    client.force_login(staff_user())
    client.get("/admin/ddb/jobs/")
    client.get("/admin/ddb/jobs/")
    rows = {row.label: row for row in page_capacity_list()}
    assert rows["ddb_jobs"].count == 2
    assert rows["ddb_jobs"].requests >= 2


def record_run(job: str, rcu: float, wcu: float, requests: int) -> None:
    """A finished run as django-celery-results stores it (the production result backend)."""
    TaskResult.objects.create(
        task_id=f"00000000-0000-4000-8000-{len(job) * 1000 + requests:012d}",
        task_name="tracker.tasks.distinct_keys",
        status="SUCCESS",
        content_type="application/json",
        content_encoding="utf-8",
        result=json.dumps(
            {"job": job, "status": "done", "capacity": {"rcu": rcu, "wcu": wcu, "requests": requests}, "result": {}}
        ),
    )


def test_the_capacity_page_draws_one_svg_bar_per_job_that_ran_and_the_same_numbers_as_a_table() -> None:
    record_run("distinct_keys:tracker-issues", 12.5, 0.0, 7)
    record_run("rotate_event_tables", 0.0, 3.0, 2)
    client = Client()
    client.force_login(staff_user())
    client.get("/admin/ddb/jobs/")  # one page in the by-page chart too
    page = client.get("/admin/ddb/capacity/").content.decode()
    jobs_section = page.split('id="ddb-capacity-jobs"')[1].split('id="ddb-capacity-pages"')[0]
    assert "<svg" in jobs_section
    labels = re.findall(r'<g class="bar" data-label="([^"]+)"', jobs_section)
    assert labels == ["distinct_keys:tracker-issues", "rotate_event_tables"]  # most capacity first
    assert "<td>12.5</td>" in jobs_section
    pages_section = page.split('id="ddb-capacity-pages"')[1]
    assert 'data-label="ddb_jobs"' in pages_section


@pytest.mark.parametrize("garbage", ["not json", "[1, 2]", json.dumps({"job": "x", "capacity": "lots"})])
def test_a_run_with_an_unreadable_result_is_left_out_of_the_chart_not_a_500(garbage: str) -> None:
    TaskResult.objects.create(
        task_id="bad-1", task_name="tracker.tasks.rotate_event_tables", status="SUCCESS", result=garbage
    )
    client = Client()
    client.force_login(staff_user())
    response = client.get("/admin/ddb/capacity/")
    assert response.status_code == 200
    assert "No finished job with a capacity report yet." in response.content.decode()


def test_the_admin_index_links_to_the_jobs_and_capacity_pages() -> None:
    client = Client()
    client.force_login(staff_user())
    page = client.get("/admin/").content.decode()
    assert 'href="/admin/ddb/jobs/"' in page
    assert 'href="/admin/ddb/capacity/"' in page
    assert 'class="ddb-requests">' in page
