"""Running a maintenance job: never overlapping itself, fenced, metered, reporting progress.

``run_job`` takes a Redis lock with an expiry (a second run started meanwhile is *skipped*), then
a fencing token from DynamoDB (``ddbmodels.jobs``), and hands the job a ``JobRun`` whose
``fence()`` must be called before anything destructive: a run that stalled past its lock's
expiry finds its token superseded and stops. Every DynamoDB call the job makes is metered, and
the result reports the capacity it consumed (also added to the Redis figures of
``tracker.capacity_stats``, by job and by access pattern, whether the run succeeded or not).
The same function serves Celery tasks and management commands; only the progress callback
differs.

Some jobs must not run alongside *each other* either: they share a lock (``SHARED_LOCKS``), taken
after their own, and a run that finds it held is skipped too, its reason naming the job that holds
it. Archiving, restoring and offboarding share the events archives' lock: offboarding rewrites
every archive without the team's events and deletes what an export left half done, so an archive
job exporting or a restore writing a period back meanwhile would keep the team's events where its
lists do not look.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from django.conf import settings

from ddbmodels import jobs
from ddbmodels.core import capacity
from ddbmodels.core.keys import utcnow
from tracker import capacity_stats
from tracker.capacity_stats import redis_client

log = logging.getLogger(__name__)
Progress = Callable[[dict[str, Any]], None]

EVENTS_ARCHIVES = "events_archives"
SHARED_LOCKS = {  # a job's kind (its name before ':') → the lock it shares with other kinds
    "archive_event_tables": EVENTS_ARCHIVES,
    "restore_event_table": EVENTS_ARCHIVES,
    "offboard_tenant": EVENTS_ARCHIVES,
}
SHARED_WHY = {
    EVENTS_ARCHIVES: "archiving, restoring an events table and offboarding a team use the events archives one at a "
    "time; start this one again once it has finished",
}
HOLDER_WORDS = {  # what the skipped run's reason calls the job holding the shared lock (never which team)
    "archive_event_tables": "Archiving events tables",
    "restore_event_table": "A restore of an events table",
    "offboard_tenant": "A team's offboarding",
}


def shared_lock_name(job: str) -> str | None:
    """The lock ``job`` shares with other kinds of job, if any (``SHARED_LOCKS``)."""
    shared = SHARED_LOCKS.get(job.split(":", 1)[0])
    return f"tracker:job-lock:shared:{shared}" if shared else None


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
    shared_lock: Any = None  # the lock shared with other kinds of job (``SHARED_LOCKS``), kept alive with ``lock``
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
            for lock in (self.lock, self.shared_lock):
                if lock is None:
                    continue
                try:
                    lock.extend(self.ttl, replace_ttl=True)
                except redis.exceptions.LockError:
                    log.warning("job %s lost a lock; the fencing token still guards it", self.name)
            self._last_extend = time.monotonic()
        self.on_progress(meta)


RUNS_KEY = "tracker:jobs:runs"
RUNS_KEPT = 200


def record_run(summary: dict[str, Any]) -> None:
    """LPUSH the run's summary onto a list capped at RUNS_KEPT; a Redis error is logged, not raised."""
    try:
        pipe = redis_client().pipeline(transaction=False)
        pipe.lpush(RUNS_KEY, json.dumps(summary, default=str))
        pipe.ltrim(RUNS_KEY, 0, RUNS_KEPT - 1)
        pipe.execute()
    except redis.exceptions.RedisError as error:
        log.warning("run of %s not recorded: %s", summary.get("job"), error)


def recent_runs(limit: int = 50) -> list[dict[str, Any]]:
    """The newest runs first: Celery's and the management commands' alike ([] when Redis is down)."""
    try:
        raw: list[bytes] = redis_client().lrange(RUNS_KEY, 0, limit - 1)  # type: ignore[assignment]
    except redis.exceptions.RedisError as error:
        log.warning("run history unavailable: %s", error)
        return []
    runs = []
    for entry in raw:
        try:
            run = json.loads(entry)
        except ValueError:
            continue
        if isinstance(run, dict):
            runs.append(run)
    return runs


def run_job(
    name: str,
    work: Callable[[JobRun], dict[str, Any]],
    *,
    ttl: int | None = None,
    on_progress: Progress = _no_progress,
    task_id: str | None = None,
    tenant: str | None = None,
) -> dict[str, Any]:
    """Run ``work`` as job ``name`` unless another run holds it; report what it did and used.

    ``tenant``: the job belongs to that team (its item is tagged, so offboarding deletes it with
    the team; ``ddbmodels.jobs.fence_acquire``). Never for a job that must outlive the team.

    Every run, skipped and failed ones too, is added to the run history (``recent_runs``), with
    the Celery task id when a task started it (``task_id``), so the history does not depend on
    the result backend and includes the management commands' runs.
    """
    ttl = ttl or settings.JOB_LOCK_SECONDS
    run_id = uuid.uuid4().hex[:12]
    summary: dict[str, Any] = {
        "job": name,
        "run_id": run_id,
        "task_id": task_id,
        "started_at": utcnow().isoformat(timespec="seconds"),
    }
    # thread_local=False: a job's progress (and so the lock's extension) may come from its worker
    # threads (the parallel scan segments), which a thread-local token would not know.
    lock = redis_client().lock(f"tracker:job-lock:{name}", timeout=ttl, blocking=False, thread_local=False)
    if not lock.acquire(blocking=False):
        log.info("job %s is already running elsewhere; skipped", name)
        record_run({**summary, "status": "skipped", "seconds": 0.0})
        return {"job": name, "run_id": run_id, "status": "skipped", "reason": "another run holds the lock"}
    shared = _take_shared(name, run_id, ttl)
    if isinstance(shared, str):
        _release(lock, name)
        log.info("job %s skipped: %s", name, shared)
        record_run({**summary, "status": "skipped", "reason": shared, "seconds": 0.0})
        return {"job": name, "run_id": run_id, "status": "skipped", "reason": shared}
    started = time.monotonic()
    meter = capacity.CapacityMeter()
    status, error_text = "failed", ""
    try:
        with capacity.measure() as meter:
            token = jobs.fence_acquire(name, run_id, tenant=tenant)
            run = JobRun(
                name=name, run_id=run_id, token=token, lock=lock, ttl=ttl, on_progress=on_progress, shared_lock=shared
            )
            result = work(run)
        status = "done"
        return {
            "job": name,
            "run_id": run_id,
            "token": token,
            "status": "done",
            "seconds": round(time.monotonic() - started, 3),
            "capacity": meter.as_dict(),
            "result": result,
        }
    except jobs.FencedOut as error:
        status, error_text = "fenced out", str(error)
        raise
    except Exception as error:
        error_text = f"{type(error).__name__}: {error}"
        raise
    finally:
        capacity_stats.record("job", name, meter)  # failed runs used capacity too
        record_run(
            {
                **summary,
                "status": status,
                "error": error_text[:500],
                "seconds": round(time.monotonic() - started, 3),
                "capacity": {k: v for k, v in meter.as_dict().items() if k in ("rcu", "wcu", "requests")},
            }
        )
        _release(lock, name)
        if shared is not None:
            _release(shared, name)


def _take_shared(name: str, run_id: str, ttl: int) -> Any:
    """The shared lock (``SHARED_LOCKS``), taken; None when the job shares none; when another job holds it, the
    reason this run is skipped, saying which kind of job holds it (the lock's token is the holder's kind and run
    id: never a team's slug, which would outlive its offboarding in the run history)."""
    key = shared_lock_name(name)
    if key is None:
        return None
    kind = name.split(":", 1)[0]
    shared = redis_client().lock(key, timeout=ttl, blocking=False, thread_local=False)
    if shared.acquire(blocking=False, token=f"{kind} {run_id}"):
        return shared
    holder = redis_client().get(key)
    holder_kind = holder.decode(errors="replace").split(" ", 1)[0] if isinstance(holder, bytes) else ""
    return f"{HOLDER_WORDS.get(holder_kind, 'Another job')} is running ({SHARED_WHY[SHARED_LOCKS[kind]]})"


def _release(lock: Any, name: str) -> None:
    try:
        lock.release()
    except redis.exceptions.LockError:
        log.warning("job %s: lock had expired before release", name)
