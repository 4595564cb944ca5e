"""The operator: staff who start maintenance jobs from the admin's Jobs page during the load.

A quarter into the load every job of ``JOBS`` is queued through the page's own forms, then each is
followed to its end through ``status.json``: the Celery worker runs them while the load goes on.
"""

from __future__ import annotations

import time
from typing import Any

from load_parts.client import Browser, Failed, forms_of, location_path
from load_parts.ledger import Load

JOBS: tuple[tuple[str, dict[str, str]], ...] = (
    ("backfill_project_counts", {"method": "auto", "segments": "1"}),
    ("reconcile", {}),
)
JOB_POLL_SECONDS = 0.5
JOB_GRACE_SECONDS = 90  # a job started during the load may finish after it, within this


def operator(load: Load, browser: Browser) -> None:
    """A quarter into the load, start every job from the admin's Jobs page; then follow each to its end."""
    time.sleep(max(0.0, load.began + load.seconds / 4 - time.monotonic()))
    started: list[dict[str, Any]] = []
    for job, params in JOBS:
        record: dict[str, Any] = {"job": job, "started_at": round(time.monotonic() - load.began, 2)}
        started.append(record)
        try:
            page = browser.get("staff jobs page", "/admin/ddb/jobs/")
            form = next((f for f in forms_of(page.text) if f.fields.get("job") == job), None)
            if form is None:
                raise Failed(f"jobs page: no form for {job}")
            data = {**form.fields, **{f"{job}-{name}": value for name, value in params.items()}}
            answer = browser.post("start job", "/admin/ddb/jobs/", data)
            if answer.status_code != 302:
                raise Failed(f"start job: {answer.status_code}")
            record["task_id"] = location_path(answer).rstrip("/").rsplit("/", 1)[1]
        except Failed as failure:
            record["error"] = str(failure)
    for record in started:
        if "task_id" in record:
            try:
                record.update(follow_job(load, browser, record["task_id"]))
            except Failed as failure:
                record["error"] = str(failure)
        record["ended_at"] = round(time.monotonic() - load.began, 2)
        with load.ledger.lock:
            load.ledger.jobs.append(record)


def follow_job(load: Load, browser: Browser, task: str) -> dict[str, Any]:
    """Poll the job's status.json until it is ready (or the grace after the load runs out)."""
    status: dict[str, Any] = {}
    while time.monotonic() < load.deadline + JOB_GRACE_SECONDS:
        status = browser.get("job status", f"/admin/ddb/jobs/{task}/status.json").json()
        if status.get("ready"):
            break
        time.sleep(JOB_POLL_SECONDS)
    return {"state": status.get("state"), "result": status.get("result"), "error": status.get("error")}
