"""Uploaded imports as their pages see them: the record in the ``jobs`` table, the job's progress from Celery.

An import is the item ``import_upload:<tenant>:<id>`` of the jobs table (its checkpoint holds the
import as JSON, ``tracker.services.imports``); the tenant is in the key, so another team's id is
simply missing (a 404), and in the item's ``tn``, so offboarding the team deletes it. While the
job writes, its done/total come from the task's PROGRESS state in Celery's result backend, as the
admin's job pages show them (``selectors.admin.jobs``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any

from celery.result import AsyncResult
from django.db import DatabaseError
from django.http import Http404
from redis.exceptions import RedisError

from ddbmodels import jobs
from ddbmodels.core.keys import utcnow
from tracker.celery import app

log = logging.getLogger(__name__)
FINISHED = ("done", "failed", "not_started")
UPLOAD_GIVEN_UP = timedelta(minutes=10)
UPLOAD_LOST = "The upload did not finish, so the import did not start; nothing was imported."


def import_job_name(tenant: str, import_id: str) -> str:
    return f"import_upload:{tenant}:{import_id}"


@dataclass
class ImportState:
    """One upload and its import; ``status`` is uploading → queued → running → done, or failed / not_started."""

    import_id: str
    tenant: str
    token: int
    status: str
    project: str
    name: str
    file: str
    size: int
    issues: int
    pull_requests: int
    comments: int
    top: int
    owner: str
    queued_at: str
    task_id: str
    upload: str
    stage: str = ""
    total: int = 0
    minimum_wcu: int = 0
    error: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    KEYED = ("import_id", "tenant", "token")  # from the item's key and token, not stored in the JSON

    def dump(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if k not in self.KEYED}, sort_keys=True)

    @property
    def queued_when(self) -> str:
        """``queued_at`` for people: ``2026-11-23 16:27 UTC``."""
        return self.queued_at[:16].replace("T", " ") + " UTC"

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def result(self) -> dict[str, Any]:
        """What the task returns (and the admin's job page shows)."""
        return {
            "import": self.import_id,
            "project": self.project,
            "status": self.status,
            "error": self.error,
            "summary": self.summary,
        }


def import_get(*, tenant: str, import_id: str) -> ImportState | None:
    """The import's record: GetItem, consistent — 1 RCU. None when the team has no such import."""
    item = jobs.job_state(import_job_name(tenant, import_id))
    if item is None or not item.checkpoint:
        return None
    stored = json.loads(item.checkpoint)
    known = {f.name for f in fields(ImportState)} - set(ImportState.KEYED)
    return ImportState(
        import_id=import_id,
        tenant=tenant,
        token=int(item.token),
        **{k: v for k, v in stored.items() if k in known},
    )


def import_access(*, tenant: str, import_id: str) -> ImportState:
    """The team's import, or Http404 (another team's import is just as missing)."""
    state = import_get(tenant=tenant, import_id=import_id)
    if state is None:
        raise Http404("No such import.")
    return state


def import_progress(state: ImportState) -> dict[str, Any]:
    """Status, stage, items written of the total, and the summary once done: the page and its JSON."""
    done = state.total if state.status == "done" else 0
    stage, status, error = state.stage, state.status, state.error
    if status == "uploading" and utcnow() - datetime.fromisoformat(state.queued_at) > UPLOAD_GIVEN_UP:
        status, error = "not_started", UPLOAD_LOST  # the page that took the file died before queueing it
    if state.status == "running":
        try:
            info = AsyncResult(state.task_id, app=app).info
        except (
            RedisError,
            OSError,
            DatabaseError,
        ) as error:  # the result backend down: the page still shows the stage, without a count
            log.warning("import %s: progress unavailable: %s", state.import_id, error)
            info = None
        if isinstance(info, dict) and info.get("total"):
            done, stage = int(info.get("done") or 0), str(info.get("stage") or stage)
    return {
        "status": status,
        "finished": status in FINISHED,
        "stage": stage,
        "done": done,
        "total": state.total,
        "percent": round(100 * done / state.total) if state.total else (100 if state.status == "done" else 0),
        "error": error,
        "summary": state.summary,
    }
