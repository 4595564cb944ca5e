"""A job's status is read once: a job finishing between two reads is never "ready" while still "STARTED".

``job_status`` used to read the state, then ``ready()`` again: a job that finished in between answered
``{"state": "STARTED", "ready": true}`` with no result, and a poller (bench/load.py's operator) stopped on it.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tracker.selectors.admin import jobs


class Finishing:
    """An AsyncResult whose job finishes right after its first read of the state."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.reads = 0

    @property
    def state(self) -> str:
        self.reads += 1
        return "STARTED" if self.reads == 1 else "SUCCESS"

    def ready(self) -> bool:
        return self.state == "SUCCESS"

    @property
    def info(self) -> Any:
        return {"status": "done"} if self.reads > 1 else None


def test_a_job_finishing_between_reads_is_not_ready_while_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "AsyncResult", Finishing)
    status = jobs.job_status(task_id=uuid.uuid4())
    assert status["state"] == "STARTED"
    assert status["ready"] is False  # the poller asks again and gets SUCCESS with its result
