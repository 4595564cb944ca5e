"""Staff in a real browser: start a distinct-keys job, watch the job page poll it to its result."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Response, expect

import ddbmodels
from ddbmodels.core import connection
from tests.tracker.browser.helpers import admin_login, shot, staff_user
from tests.tracker.conftest import WorkerFactory, World

pytestmark = [pytest.mark.browser, pytest.mark.slow]

JOB_TIMEOUT_MS = 120_000  # a cold worker process, then the job itself
KEYS = [f"customer-{n}" for n in range(1, 6)]  # five partition keys …
ITEMS_PER_KEY = 3  # … of three items each


@pytest.fixture
def keys_table(ddblocal: ddbmodels.DynamoSettings) -> Iterator[str]:
    """A table of this test's own on DynamoDB Local with known partition keys (outside the app's prefix,
    so no other test's table listing sees it); dropped afterwards."""
    client = connection.client()
    name = f"browser-keys-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=name)
    for key in KEYS:
        for n in range(ITEMS_PER_KEY):
            client.put_item(TableName=name, Item={"pk": {"S": key}, "sk": {"N": str(n)}, "body": {"S": "x" * 100}})
    yield name
    client.delete_table(TableName=name)


def test_staff_start_a_distinct_keys_job_and_watch_it_reach_its_result(
    page: Page, world: World, keys_table: str, start_worker: WorkerFactory
) -> None:
    staff_user("ops-jobs", superuser=True)
    admin_login(page, "ops-jobs")
    page.get_by_role("link", name="Maintenance jobs").click()
    expect(page).to_have_url(re.compile(r"/admin/ddb/jobs/$"))
    form = page.locator("#job-distinct_keys")
    expect(form.locator("h2")).to_have_text("Distinct partition keys")
    shot(page, "admin-07-jobs")

    form.locator("#id_distinct_keys-table").select_option(keys_table)
    form.locator("#id_distinct_keys-method").select_option("scan")
    form.locator("#id_distinct_keys-segments").fill("2")
    polls: list[Response] = []
    page.on("response", lambda r: polls.append(r) if r.url.endswith("/status.json") else None)
    form.get_by_role("button", name="Start").click()

    expect(page).to_have_url(re.compile(r"/admin/ddb/jobs/[0-9a-f-]{36}/$"))
    task_id = page.url.rstrip("/").rsplit("/", 1)[1]
    expect(page.locator("ul.messagelist li.success")).to_have_text(f"Distinct partition keys: queued as {task_id}.")
    # Nothing runs it yet: the page shows the queued job and polls status.json for news.
    expect(page.locator("#job-state")).to_have_text("PENDING")
    expect(page.locator("#job-result")).to_be_hidden()
    shot(page, "admin-08-job-pending")
    with page.expect_response(lambda r: r.url.endswith(f"/{task_id}/status.json")):
        pass  # at least one poll while PENDING

    start_worker()  # a real Celery worker process on the test Redis and DynamoDB Local
    expect(page.locator("#job-state")).to_have_text("SUCCESS", timeout=JOB_TIMEOUT_MS)
    result = page.locator("#job-result")
    expect(result).to_be_visible()
    # The page polled until the run was ready, then reloaded itself to say the answer: same URL.
    assert page.url.endswith(f"/admin/ddb/jobs/{task_id}/")
    expect(page.locator("#job-answer")).to_contain_text(
        f"{len(KEYS)} distinct partition keys in {keys_table} found by a full scan"
    )
    expect(page.locator("#job-items li")).to_have_count(len(KEYS))
    assert len(polls) >= 2
    assert all(r.status == 200 for r in polls)
    # (the last poll's body went with the reload; the page rendered after it says SUCCESS, above)
    progress = page.locator("#job-progress")
    assert progress.evaluate("bar => [bar.value, bar.max]") == [1, 1]

    # The result: the keys found and the capacity consumed.
    shown = json.loads(page.locator("#job-json").text_content() or "")
    assert shown["job"] == f"distinct_keys:{keys_table}"
    assert shown["status"] == "done"
    report = shown["result"]["report"]
    assert report["table"] == keys_table
    assert report["method"] == "scan"
    assert report["segments"] == 2
    assert report["distinct_keys"] == len(KEYS)
    assert sorted(shown["result"]["sample"]) == KEYS
    capacity = shown["capacity"]
    assert capacity["rcu"] > 0
    assert capacity["by_operation"]["Scan"] >= 2  # one Scan per segment at least
    assert float(page.locator("#cap-rcu").inner_text()) == capacity["rcu"]
    assert int(page.locator("#cap-requests").inner_text()) == capacity["requests"] >= 3
    expect(page.locator("#cap-ops")).to_contain_text(f"Scan {capacity['by_operation']['Scan']}")
    assert float(page.locator("#job-seconds").inner_text()) == shown["seconds"]
    shot(page, "admin-09-job-result")

    # A reload renders the same final state server-side.
    page.reload()
    expect(page.locator("#job-state")).to_have_text("SUCCESS")
    assert float(page.locator("#cap-rcu").inner_text()) == capacity["rcu"]
    assert "customer-3" in (page.locator("#job-json").text_content() or "")
