"""Starting maintenance jobs from the admin: check the starter's right, audit the start, queue the Celery task.

Which right a job needs (``JOB_KINDS``): a job that only reads (and writes its own run record and
result) needs ``tracker.change_tenant``; one that writes or deletes data or tables needs
``audit.run_destructive_jobs`` (superusers have both). Every start is in the staff audit, written
before the task is queued and marked done with the task id, or failed.

Queueing goes through Celery's broker (Redis), with the socket timeouts and the one quick retry
of the settings: when Redis is down or frozen, ``Unavailable`` says so within seconds (the admin
shows it as a 503 in its own chrome) and no job was queued (the audit entry says failed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied

from ddbmodels.core.errors import Unavailable
from tracker import enqueue
from tracker.celery import app
from tracker.services.admin.audit import Action, audit_begin, audited
from tracker.services.offboarding import offboarding_start
from tracker.services.permissions import NO_DESTRUCTIVE_JOBS, staff_can_change, staff_can_run_destructive_jobs

QUEUE_DOWN = "The job queue (Redis) is not answering, so the job was not started. Try again once Redis is back."
NO_READ_JOBS = "Starting jobs needs superuser status or the tracker.change_tenant permission."

# Every job the admin can start → does it write or delete data or tables (True: destructive).
JOB_KINDS: dict[str, bool] = {
    enqueue.DISTINCT_KEYS: False,  # reads a table (Scan or Query)
    enqueue.ENUMERATE_PROJECTS: False,  # reads the issues table
    enqueue.BACKFILL_PROJECT_COUNTS: True,  # rewrites every team's project items (their counts)
    enqueue.ROTATE_EVENT_TABLES: True,  # creates a table and changes tables' throughput
    enqueue.ARCHIVE_EVENT_TABLES: True,  # drops tables once archived (a dry run writes an archive only)
    enqueue.RESTORE_EVENT_TABLE: True,  # creates a table and writes an archive's events back
    enqueue.RECONCILE_ATTACHMENTS: True,  # completes or rolls back attachments: deletes items and files
    enqueue.OFFBOARD_TENANT: True,  # exports, then deletes all of a team's data (tracker.services.offboarding)
}


def job_is_destructive(task: str) -> bool:
    """Does the job write or delete data or tables? (An unknown job counts as one that does.)"""
    return JOB_KINDS.get(task, True)


def job_may_start(user: AbstractBaseUser | AnonymousUser, task: str) -> bool:
    """audit.run_destructive_jobs for a job that writes or deletes; tracker.change_tenant for one that reads."""
    return staff_can_run_destructive_jobs(user) if job_is_destructive(task) else staff_can_change(user)


def job_require(user: AbstractBaseUser | AnonymousUser, task: str) -> None:
    """PermissionDenied (403) unless ``user`` may start ``task``."""
    if not job_may_start(user, task):
        raise PermissionDenied(NO_DESTRUCTIVE_JOBS if job_is_destructive(task) else NO_READ_JOBS)


def _queue(start: Callable[..., Any], **kwargs: Any) -> str:
    """Call ``start`` (a task's ``delay``, looked up by the caller: a wrong name raises there, not here)."""
    try:
        return str(start(**kwargs).id)
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable(QUEUE_DOWN, queue_down=QUEUE_DOWN) from error


def job_start(*, task: str, params: dict[str, Any], by: AbstractBaseUser, title: str = "") -> str:
    """Queue the job ``task`` (a ``tracker.enqueue`` name) with ``params`` as ``by``; the task id.

    PermissionDenied (nothing audited or queued) when ``by`` may not start it; Unavailable when
    Redis is down (audited as failed).
    """
    job_require(by, task)
    start = enqueue.task(task).delay
    entry = audit_begin(by=by, action=Action.JOB_START, target=title or task, details={"task": task, "params": params})
    with audited(entry):
        entry.result = _queue(start, **params)
    return entry.result


def schedule_run_now(
    *, task: str, args: list[Any], kwargs: dict[str, Any], options: dict[str, Any], name: str, by: AbstractBaseUser
) -> str:
    """Queue a beat schedule's task now (its arguments and options) as ``by``; the task id. Same rules as ``job_start``.

    django-celery-beat's "Run selected tasks" goes through here: the job's right (JOB_KINDS; any task
    it does not name counts as one that writes), then the audit entry, then ``apply_async``.
    KeyError (nothing audited or queued) for a task no worker module registers.
    """
    job_require(by, task)
    found = enqueue.task(task) if task in enqueue.NAMES else app.tasks[task]
    start = partial(found.apply_async, args=args, kwargs=kwargs, **options)
    details = {"task": task, "args": args, "kwargs": kwargs, "schedule": name}
    entry = audit_begin(by=by, action=Action.JOB_START, target=f"Run schedule {name}", details=details)
    with audited(entry):
        entry.result = _queue(start)
    return entry.result


def schedule_may_change(user: AbstractBaseUser | AnonymousUser, *tasks: str) -> bool:
    """May ``user`` add, change, enable, disable or delete a beat schedule of each of ``tasks`` (its old and new)?

    The right to start the job (``job_may_start``): a schedule starts it with any arguments, later.
    """
    return all(job_may_start(user, task) for task in tasks if task)


def reconcile_attachments_start(*, by: AbstractBaseUser) -> str:
    """Queue the reconcile-attachments job with its defaults (stuck past ATTACHMENT_STUCK_SECONDS); audited."""
    return job_start(task=enqueue.RECONCILE_ATTACHMENTS, params={}, by=by, title="Reconcile attachments")


def offboarding_queue(*, slug: str, by: AbstractBaseUser) -> str:
    """Queue the offboarding of the team ``slug`` as ``by`` (audit.run_destructive_jobs); audited with the team.

    The entry is written before the job is queued and names the team in its ``tenant`` column.
    """
    job_require(by, enqueue.OFFBOARD_TENANT)
    entry = audit_begin(
        by=by,
        action=Action.OFFBOARD,
        target=f"Offboard {slug}",
        tenant=slug,
        details={"task": enqueue.OFFBOARD_TENANT, "params": {"slug": slug}},
    )
    with audited(entry):
        entry.result = offboarding_start(slug=slug)
    return entry.result
