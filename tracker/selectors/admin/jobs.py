"""Maintenance jobs as the admin shows them: one run's state and result, the history of runs."""

from __future__ import annotations

import uuid
from typing import Any

from celery import states
from celery.result import AsyncResult
from django_celery_results.models import TaskResult

from tracker.celery import app
from tracker.jobs import recent_runs

HISTORY_ROWS = 50


def job_status(*, task_id: uuid.UUID) -> dict[str, Any]:
    """State, PROGRESS meta (stage/done/total), and the result with its capacity once finished."""
    result = AsyncResult(str(task_id), app=app)
    state = result.state  # read once: ``ready`` from it, not from a second read a finishing job may answer differently
    data: dict[str, Any] = {"task_id": str(task_id), "state": state, "ready": state in states.READY_STATES}
    info = result.info
    if state == "PROGRESS" and isinstance(info, dict):
        data["progress"] = {k: info.get(k) for k in ("stage", "done", "total", "keys", "requests")}
    elif state == "SUCCESS":
        data["result"] = info
    elif state in {"FAILURE", "REVOKED"}:
        data["error"] = repr(info)
    return data


def job_task_name(*, task_id: uuid.UUID) -> str | None:
    """The Celery task name the result backend recorded for the run (None before it is recorded)."""
    task = TaskResult.objects.filter(task_id=str(task_id)).first()
    return task.task_name if task else None


def job_history(limit: int = HISTORY_ROWS) -> list[dict[str, Any]]:
    """The newest runs first, Celery's and the management commands' alike ([] when Redis is down)."""
    return recent_runs(limit)
