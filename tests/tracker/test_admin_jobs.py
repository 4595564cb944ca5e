"""The Jobs pages: start a maintenance job, watch it through status.json, permissions, bad input."""

from __future__ import annotations

import uuid
from typing import Any
from unittest import mock

import pytest

from ddbmodels.core import connection
from tests.tracker.conftest import WorkerFactory
from tests.tracker.helpers import staff_client, wait_for_job
from tracker import tasks


def distinct_keys_post(**overrides: Any) -> dict[str, Any]:
    data = {
        "job": "distinct_keys",
        "distinct_keys-table": connection.table_name("issues"),
        "distinct_keys-method": "scan",
        "distinct_keys-segments": "2",
        "distinct_keys-index": "",
    }
    data.update({f"distinct_keys-{k}": v for k, v in overrides.items()})
    return data


@pytest.mark.slow
def test_a_distinct_keys_job_started_from_the_jobs_page_reaches_success_with_its_capacity(
    start_worker: WorkerFactory,
) -> None:
    start_worker()
    client = staff_client("operator", may_change=True)
    response = client.post("/admin/ddb/jobs/", distinct_keys_post())
    assert response.status_code == 302
    task_id = response["Location"].rstrip("/").rsplit("/", 1)[1]
    assert response["Location"] == f"/admin/ddb/jobs/{task_id}/"
    status = wait_for_job(client, task_id)
    assert status["state"] == "SUCCESS", status
    result = status["result"]
    assert result["job"] == f"distinct_keys:{connection.table_name('issues')}"
    assert result["capacity"]["requests"] >= 1
    assert result["capacity"]["by_operation"]["Scan"] >= 1
    page = client.get(f"/admin/ddb/jobs/{task_id}/").content.decode()
    assert "SUCCESS" in page
    assert 'id="cap-requests">' in page
    # The run is in the Jobs page's history (recorded by the worker, whatever the result backend).
    history = client.get("/admin/ddb/jobs/").content.decode().split('id="job-history"')[1]
    row = history.split(f'data-run="{result["run_id"]}"')[1].split("</tr>")[0]
    assert "done" in row
    assert f'href="/admin/ddb/jobs/{task_id}/"' in row


def test_a_staff_user_without_permission_sees_a_read_only_page_and_cannot_start_a_job() -> None:
    client = staff_client("reader", may_change=False)
    page = client.get("/admin/ddb/jobs/").content.decode()
    assert "Read only" in page
    assert 'value="Start"' not in page
    with mock.patch.object(tasks.distinct_keys, "delay") as delay:
        response = client.post("/admin/ddb/jobs/", distinct_keys_post())
    assert response.status_code == 403
    delay.assert_not_called()


@pytest.mark.parametrize(
    ("field", "value"),
    [("segments", "0"), ("segments", "10000"), ("method", "sideways"), ("table", "no-such-table"), ("segments", "x")],
)
def test_malformed_job_parameters_are_form_errors_and_queue_nothing(field: str, value: str) -> None:
    client = staff_client("operator", may_change=True)
    with mock.patch.object(tasks.distinct_keys, "delay") as delay:
        response = client.post("/admin/ddb/jobs/", distinct_keys_post(**{field: value}))
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert response.context["forms"][0][1].errors[field]
    delay.assert_not_called()


def test_an_unknown_job_is_a_400_and_a_malformed_task_id_a_404() -> None:
    client = staff_client("operator", may_change=True)
    assert client.post("/admin/ddb/jobs/", {"job": "format_disk"}).status_code == 400
    assert client.get("/admin/ddb/jobs/not-a-task/").status_code == 404
    assert client.get("/admin/ddb/jobs/not-a-task/status.json").status_code == 404


def test_a_permitted_start_queues_the_task_with_the_forms_parameters() -> None:
    client = staff_client("operator", may_change=True)
    queued = uuid.uuid4()
    with mock.patch.object(tasks.archive_event_tables, "delay", return_value=mock.Mock(id=str(queued))) as delay:
        response = client.post("/admin/ddb/jobs/", {"job": "archive", "archive-dry_run": "on"})
    delay.assert_called_once_with(dry_run=True)
    assert response.status_code == 302
    assert response["Location"] == f"/admin/ddb/jobs/{queued}/"
