"""Running a maintenance job: never overlapping itself, fenced, metered, reporting progress.

``run_job`` takes a Redis lock with an expiry (a second run started meanwhile is *skipped*), then
a fencing token from DynamoDB (``ddbmodels.jobs``), and hands the job a ``JobRun`` whose
``fence()`` must be called before anything destructive: a run that stalled past its lock's
expiry finds its token superseded and stops. Every DynamoDB call the job makes is metered, and
the result reports the capacity it consumed (also added to the Redis figures of
``tracker.capacity_stats``, by job and by access pattern, whether the run succeeded or not).
The same function serves Celery tasks and management commands; only the progress callback
differs.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from django.conf import settings

from ddbmodels import capacity, jobs
from tracker import capacity_stats
from tracker.capacity_stats import redis_client

log = logging.getLogger(__name__)
Progress = Callable[[dict[str, Any]], None]


def _no_progress(_: dict[str, Any]) -> None:
    return None


@dataclass
class JobRun:
    """What a running job may do besides its own work."""

    name: str
    run_id: str
    token: int
    lock: Any
    ttl: int
    on_progress: Progress = _no_progress
    _last_extend: float = field(default_factory=time.monotonic)

    def fence(self) -> None:
        """Conditional write on the fencing token (1 WCU); raises FencedOut if superseded."""
        jobs.fence_check(self.name, self.token)

    def checkpoint(self) -> str | None:
        state = jobs.job_state(self.name)
        return state.checkpoint if state else None

    def save_checkpoint(self, value: str | None) -> None:
        jobs.checkpoint_save(self.name, self.token, value)

    def progress(self, **meta: Any) -> None:
        """Report progress, and keep the lock alive while the job is visibly working."""
        if time.monotonic() - self._last_extend > self.ttl / 3:
            try:
                self.lock.extend(self.ttl, replace_ttl=True)
            except redis.exceptions.LockError:
                log.warning("job %s lost its lock; the fencing token still guards it", self.name)
            self._last_extend = time.monotonic()
        self.on_progress(meta)


def run_job(
    name: str,
    work: Callable[[JobRun], dict[str, Any]],
    *,
    ttl: int | None = None,
    on_progress: Progress = _no_progress,
) -> dict[str, Any]:
    """Run ``work`` as job ``name`` unless another run holds it; report what it did and used."""
    ttl = ttl or settings.JOB_LOCK_SECONDS
    run_id = uuid.uuid4().hex[:12]
    lock = redis_client().lock(f"tracker:job-lock:{name}", timeout=ttl, blocking=False)
    if not lock.acquire(blocking=False):
        log.info("job %s is already running elsewhere; skipped", name)
        return {"job": name, "run_id": run_id, "status": "skipped", "reason": "another run holds the lock"}
    started = time.monotonic()
    meter = capacity.CapacityMeter()
    try:
        with capacity.measure() as meter:
            token = jobs.fence_acquire(name, run_id)
            run = JobRun(name=name, run_id=run_id, token=token, lock=lock, ttl=ttl, on_progress=on_progress)
            result = work(run)
        return {
            "job": name,
            "run_id": run_id,
            "token": token,
            "status": "done",
            "seconds": round(time.monotonic() - started, 3),
            "capacity": meter.as_dict(),
            "result": result,
        }
    finally:
        capacity_stats.record("job", name, meter)  # failed runs used capacity too
        try:
            lock.release()
        except redis.exceptions.LockError:
            log.warning("job %s: lock had expired before release", name)
