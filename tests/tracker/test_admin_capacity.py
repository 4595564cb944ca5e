"""The capacity meter per request (admin footer, Redis aggregate) and the capacity page."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils.html import escape

from ddbmodels.core import capacity
from ddbmodels.patterns import distinct_keys as dk
from tests.raw_tables import collection_items, put_items
from tests.tracker.conftest import World
from tracker import capacity_stats
from tracker.capacity_stats import Kind, Row
from tracker.jobs import JobRun, run_job


@pytest.fixture(autouse=True)
def _fresh_figures() -> None:
    """The session's Redis keeps the figures of earlier tests: start each test from none."""
    client = capacity_stats.redis_client()
    for key in client.scan_iter(f"{capacity_stats.KEY_PREFIX}*"):
        client.delete(key)


def staff_user(username: str = "staff") -> User:
    """A staff user who may run jobs (tracker.view_tenant and change_tenant): the Jobs page's forms list the tables."""
    user = User.objects.create_user(username, password="pw-for-tests", is_staff=True)
    for codename in ("view_tenant", "change_tenant"):
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label="tracker"))
    return user


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
    # The jobs page's forms list the endpoint's tables (ListTables): at least one DynamoDB request.
    response = client.get("/admin/ddb/jobs/")
    assert response.status_code == 200
    footer = re.search(r'class="ddb-requests">(\d+)<', response.content.decode())
    assert footer is not None
    assert int(footer.group(1)) >= 1
    assert 'class="ddb-rcu">' in response.content.decode()


def rows(kind: Kind) -> dict[str, Row]:
    return {row.label: row for row in capacity_stats.totals(kind)}


def test_each_request_adds_its_capacity_to_the_rolling_aggregate_by_url_name() -> None:
    client = Client()
    client.force_login(staff_user())
    client.get("/admin/ddb/jobs/")
    client.get("/admin/ddb/jobs/")
    pages = rows("page")
    assert pages["ddb_jobs"].count == 2
    assert pages["ddb_jobs"].requests >= 2


def test_a_request_files_its_calls_under_the_access_patterns_that_made_them(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(world.project_url("new/"), {"title": "Metered", "priority": "medium"})
    assert response.status_code == 302
    patterns = rows("pattern")
    # The sort-key sequence: one consistent Query (1 RCU), then the issue with its 3 list-index entries
    # in one PutItem (4 WCU): no label, and the title's words are the search engine's, not DynamoDB's.
    assert patterns["issues.create"].count == 1
    assert (patterns["issues.create"].rcu, patterns["issues.create"].wcu) == (1.0, 4.0)
    assert patterns["issues.create"].per_call == 5.0  # capacity units a call


def test_a_job_run_adds_its_capacity_by_job_and_by_pattern_whatever_the_result_backend() -> None:
    name = f"capacity-test-{uuid.uuid4().hex[:6]}"

    def work(run: JobRun) -> dict[str, Any]:
        run.fence()  # one conditional UpdateItem under jobs.fence
        return {}

    run_job(name, work)
    with pytest.raises(RuntimeError):
        run_job(name, lambda run: (_ for _ in ()).throw(RuntimeError("failed mid-way")))
    jobs = rows("job")
    assert jobs[name].count == 2  # the failed run is counted too: it used capacity
    assert jobs[name].wcu >= 3  # 2 token acquisitions + 1 fence check, 1 WCU each
    assert rows("pattern")["jobs.fence"].count >= 3


def test_the_capacity_page_draws_patterns_jobs_and_pages_as_svg_bars_with_the_same_numbers_as_tables(
    world: World,
) -> None:
    meter = capacity.CapacityMeter(rcu=12.5, requests=7)
    capacity_stats.record("job", "distinct_keys:tracker-issues", meter)
    capacity_stats.record("job", "rotate_event_tables", capacity.CapacityMeter(wcu=3.0, requests=2))
    client = world.client_for(world.member)
    client.post(world.project_url("new/"), {"title": "Charted", "priority": "medium"})
    staff = Client()
    staff.force_login(staff_user())
    staff.get("/admin/ddb/jobs/")  # one page in the by-page chart too
    page = staff.get("/admin/ddb/capacity/").content.decode()

    patterns = page.split('id="ddb-capacity-patterns"')[1].split('id="ddb-capacity-jobs"')[0]
    assert "<svg" in patterns
    assert 'data-label="issues.create"' in patterns
    stated = escape(capacity.stated_costs()["issues.create"][0])
    assert (
        f'<td>issues.create<br><span class="help ddb-stated">Stated: {stated}</span></td>'
        "<td>1</td><td>1.0</td><td>4.0</td><td>2</td><td>5.0</td>"
    ) in patterns

    jobs = page.split('id="ddb-capacity-jobs"')[1].split('id="ddb-capacity-pages"')[0]
    labels = re.findall(r'<g class="bar" data-label="([^"]+)"', jobs)
    assert labels == ["distinct_keys:tracker-issues", "rotate_event_tables"]  # most capacity first
    assert "<td>12.5</td>" in jobs
    pages_section = page.split('id="ddb-capacity-pages"')[1]
    assert 'data-label="ddb_jobs"' in pages_section


def test_with_redis_down_requests_are_served_and_the_capacity_page_says_there_is_nothing(
    settings: pytest.FixtureRequest,
) -> None:
    client = Client()
    client.force_login(staff_user())
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # type: ignore[attr-defined]
    response = client.get("/admin/ddb/capacity/")
    assert response.status_code == 200
    assert "No DynamoDB call recorded yet." in response.content.decode()


def test_the_admin_index_links_to_the_jobs_and_capacity_pages() -> None:
    client = Client()
    client.force_login(staff_user())
    page = client.get("/admin/").content.decode()
    assert 'href="/admin/ddb/jobs/"' in page
    assert 'href="/admin/ddb/capacity/"' in page
    assert 'class="ddb-requests">' in page


def test_each_pattern_shows_its_stated_cost_and_patterns_not_run_are_listed_with_theirs() -> None:
    client = Client()
    client.force_login(staff_user())
    client.get("/admin/ddb/jobs/")  # admin.describe runs; issues.create does not
    page = client.get("/admin/ddb/capacity/").content.decode()
    patterns = page.split('id="ddb-capacity-patterns"')[1].split('id="ddb-capacity-jobs"')[0]
    measured, not_run = patterns.split('class="ddb-not-run"')
    assert "<td>issues.create" not in measured
    assert f"<li><code>issues.create</code>: {escape(capacity.stated_costs()['issues.create'][0])}</li>" in not_run
    assert escape(capacity.stated_costs()["issues.get"][0]).startswith("GetItem pk, SK=number — 0.5 RCU")


def test_a_probe_that_did_not_run_is_not_counted_as_a_call(tables: Callable[..., str]) -> None:
    name = tables("S", "N")
    put_items(name, [item for key in ("a", "b", "c") for item in collection_items("S", key, "N", range(3))])

    def work(run: JobRun) -> dict[str, Any]:
        return {method: dk.distinct_keys(name, method).report.distinct_keys for method in ("scan", "skip-scan")}

    assert run_job(f"probe-test-{uuid.uuid4().hex[:6]}", work)["result"] == {"scan": 3, "skip-scan": 3}
    patterns = rows("pattern")
    assert "distinct_keys.probe" not in patterns  # neither method probes: no probe call, however many runs
    assert (patterns["distinct_keys.scan"].count, patterns["distinct_keys.skip-scan"].count) == (1, 1)
