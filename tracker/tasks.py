"""Celery tasks: thin — lock, meter and report through ``run_job``, work in tracker.services.

Services never import this module: they queue a task by its name through ``tracker.enqueue``, so
the services are imported here at the top, like any other module's imports.

Long jobs are idempotent and run with ``acks_late`` + ``reject_on_worker_lost`` (a killed worker
gives the message back to the broker) and prefetch 1 (settings). Transient DynamoDB/network
errors are retried with exponential backoff and jitter; anything else fails the task visibly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from celery import Task, shared_task
from celery.exceptions import Retry
from django.core.cache import cache
from django.db import OperationalError

from ddbmodels import issues as ddb_issues
from ddbmodels.core import errors, retry
from ddbmodels.jobs import FencedOut
from tracker.jobs import JobRun, run_job
from tracker.search import indexing
from tracker.selectors.imports import import_get, import_job_name
from tracker.selectors.labels import change_job_name
from tracker.services import (
    attachments,
    history_removal,
    imports,
    inbox,
    labels,
    maintenance,
    milestone_close,
    offboarding,
    offboarding_exports,
    personal_invitations,
)
from tracker.services.projects import project_counts_refresh
from tracker.services.webhooks import delivery as webhook_delivery
from tracker.services.webhooks import emit as webhook_emit

TRANSIENT_CODES = errors.UNAVAILABLE_CODES  # DynamoDB's retryable answers: the one list is ddbmodels'
JOB_OPTIONS: dict[str, Any] = {"bind": True, "acks_late": True, "reject_on_worker_lost": True, "max_retries": 5}
TASK_BACKOFF = retry.Backoff(attempts=JOB_OPTIONS["max_retries"] + 1, base_s=1.0, cap_s=300.0)
_jitter = random.Random()
T = TypeVar("T")


def is_transient(error: BaseException) -> bool:
    """Worth retrying later: network trouble, throttling, or a 5xx after botocore's own retries.

    Also DynamoDB being unavailable as ddbmodels names it (``errors.is_unavailable``), and Redis
    not answering (the job's lock could not be taken or kept).
    """
    if isinstance(error, (*errors.NETWORK_ERRORS, ConnectionError)):
        return True
    if errors.is_unavailable(error) or isinstance(
        error, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError
    ):
        return True
    if isinstance(error, errors.PYNAMODB_ERRORS):
        # errors.response_code, not PynamoDB's cause_response_code: that one fails when no answer came
        cause = getattr(error, "cause", None)  # the botocore error PynamoDB wraps
        return errors.response_code(error) in TRANSIENT_CODES or (cause is not None and is_transient(cause))
    code = getattr(error, "response", {}).get("Error", {}).get("Code") if hasattr(error, "response") else None
    return code in TRANSIENT_CODES


def _run(
    task: Task, name: str, work: Callable[[JobRun], dict[str, Any]], *, tenant: str | None = None
) -> dict[str, Any]:
    # Progress may come from a job's worker threads, where task.request (thread-local) is empty.
    task_id = task.request.id

    def progress(meta: dict[str, Any]) -> None:
        if task_id:
            task.update_state(task_id=task_id, state="PROGRESS", meta=meta)

    return _retrying(task, lambda: run_job(name, work, on_progress=progress, task_id=task_id, tenant=tenant))


def _retrying(task: Task, work: Callable[[], T], *, transient: Callable[[BaseException], bool] = is_transient) -> T:
    """``work()``; a ``transient`` failure retries the task later, any other is raised."""
    try:
        return work()
    except Exception as error:
        if transient(error):
            # The one full-jitter backoff: uniform in [0, min(5 min, 2 s · 2^retries)].
            countdown = TASK_BACKOFF.delay(task.request.retries + 1, _jitter)
            raise task.retry(exc=error, countdown=countdown) from error
        raise


# Tasks about one team's items store no result (``ignore_result``): nobody reads them, and with
# CELERY_RESULT_EXTENDED a result record keeps the task's arguments — the team's titles, excerpts and
# usernames — in the result backend (issue 20, finding 1). Jobs keep theirs: the jobs pages read them.
TEAM_TASK = {"ignore_result": True}


EMIT_MAX_RETRIES = 100  # ≈ 4 h of waits (≤ 300 s, ≈ 150 s each): emit_left stops at 1 h of the change's age


@shared_task(acks_late=True, **TEAM_TASK)
def refresh_project_counts(tenant: str, key: str) -> dict[str, int]:
    """Recount one project's issues by status (debounced by the writes that queue it)."""
    cache.delete(f"counts-pending:{tenant}#{key}")
    return project_counts_refresh(tenant=tenant, key=key)


@shared_task(**JOB_OPTIONS)
def distinct_keys(self: Task, table: str, method: str = "auto", segments: int = 1, index: str | None = None) -> dict:
    """Distinct partition keys of any table (the distinct-keys pattern): scan, gsi, skip-scan or auto."""
    return _run(
        self,
        f"distinct_keys:{table}",
        lambda run: maintenance.distinct_keys_job(run, table=table, method=method, segments=segments, index=index),
    )


@shared_task(**JOB_OPTIONS)
def enumerate_projects(self: Task, method: str = "auto", segments: int = 1) -> dict:
    """Every project collection of the issues table, by the cheapest method."""
    return _run(
        self,
        "enumerate_projects",
        lambda run: maintenance.enumerate_projects_job(run, method=method, segments=segments),
    )


@shared_task(**JOB_OPTIONS)
def backfill_project_counts(self: Task, method: str = "auto", segments: int = 1) -> dict:
    """Refresh every project's static item (resumable from its checkpoint)."""
    return _run(
        self,
        "backfill_project_counts",
        lambda run: maintenance.backfill_project_counts_job(run, method=method, segments=segments),
    )


@shared_task(**JOB_OPTIONS)
def rotate_event_tables(self: Task) -> dict:
    """Daily: next period's events table ahead of time; hot/cold throughput."""
    return _run(self, "rotate_event_tables", maintenance.rotate_event_tables_job)


@shared_task(**JOB_OPTIONS)
def archive_event_tables(self: Task, dry_run: bool = False) -> dict:
    """Daily: archive, verify and drop events tables past retention (never dropped unverified)."""
    return _run(
        self,
        "archive_event_tables",
        lambda run: maintenance.archive_event_tables_job(run, dry_run=dry_run),
    )


@shared_task(**JOB_OPTIONS)
def restore_event_table(self: Task, archive: str, table: str | None = None) -> dict:
    """Recreate an events table from its archive."""
    return _run(
        self,
        f"restore_event_table:{archive}",
        lambda run: maintenance.restore_event_table_job(run, archive=archive, table=table),
    )


@shared_task(**JOB_OPTIONS)
def reconcile_attachments(self: Task, older_than_seconds: int | None = None, limit: int | None = None) -> dict:
    """Every 15 min: finish or roll back attachments stuck in Attaching/Detaching (sparse in_flight index)."""
    return _run(
        self,
        "reconcile_attachments",
        lambda run: attachments.reconcile_attachments_job(run, older_than_seconds=older_than_seconds, limit=limit),
    )


@shared_task(**JOB_OPTIONS)
def offboard_tenant(self: Task, slug: str) -> dict:
    """Export every item and file of a tenant, verify the archive, then delete them (resumable)."""
    return _run(
        self,
        offboarding.offboarding_job_name(slug),
        lambda run: offboarding.offboard_tenant_job(run, slug=slug),
    )


@shared_task(**JOB_OPTIONS)
def expire_offboarding_exports(self: Task) -> dict:
    """Daily: delete offboarded teams' exports older than OFFBOARDING_EXPORT_DAYS (recorded on the retired slug)."""
    return _run(self, "expire_offboarding_exports", offboarding_exports.expire_offboarding_exports_job)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=JOB_OPTIONS["max_retries"], **TEAM_TASK)
def fan_out_event(self: Task, event: dict[str, Any]) -> dict[str, Any]:
    """Notify an issue's watchers of one change (queued by ``activity.record``); exactly once per event."""
    return _retrying(self, lambda: inbox.fan_out(**event))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=JOB_OPTIONS["max_retries"], **TEAM_TASK)
def send_notification_digest(self: Task, **window: Any) -> dict[str, Any]:
    """One person's e-mail about one issue when its mail window closes (queued by the fan-out); sent once."""
    return _retrying(self, lambda: inbox.send_digest(**window))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=JOB_OPTIONS["max_retries"], **TEAM_TASK)
def history_unquote(
    self: Task, tenant: str, project_key: str, number: int, event_keys: list[str], usernames: list[str]
) -> int:
    """A change removed from an issue's history: its notifications rewritten without the quote (a large team's)."""
    return _retrying(
        self,
        lambda: history_removal.notifications_unquote(
            tenant=tenant, project_key=project_key, number=number, event_keys=event_keys, usernames=usernames
        ),
    )


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=30,  # the attempt's lease is 60 s: a stuck attempt is retried by the sweep after it
    max_retries=JOB_OPTIONS["max_retries"],
    **TEAM_TASK,
)
def deliver_webhook(self: Task, tenant: str, endpoint_id: str, delivery_id: str) -> str:
    """The next attempt of one webhook delivery (queued by ``webhooks.emit_later``, a retry or the due sweep)."""
    return _retrying(self, lambda: webhook_delivery.attempt(tenant, endpoint_id, delivery_id))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=EMIT_MAX_RETRIES, **TEAM_TASK)
def emit_webhooks(self: Task, tenant: str, endpoint_ids: list[str] | None, type: str, event_key: str, body: str) -> int:
    """The webhook deliveries of one change DynamoDB refused in the request (``webhooks.emit_later``), put again:
    retried (waits ≤ 300 s) until the change is ``emit.EMIT_RETRY_SECONDS`` (1 h) old, then the deliveries still
    refused are logged as lost by name (``emit_left``); ``EMIT_MAX_RETRIES`` only backs that stop up (R2-2)."""
    return _retrying(
        self,
        lambda: webhook_emit.emit_left(
            tenant=tenant, endpoint_ids=endpoint_ids, type=type, event_key=event_key, body=body
        ),
    )


@shared_task(acks_late=True, ignore_result=True)
def webhook_due() -> int:
    """Every minute: queue the webhook deliveries whose next attempt is due (8 due shards, one Query each)."""
    return webhook_delivery.sweep()


@shared_task(acks_late=True, **TEAM_TASK)
def send_invitation_email(invitation_id: int) -> bool:
    """The one e-mail of an invitation by name, if it reached a confirmed address (queued for every request)."""
    return personal_invitations.personal_invitation_mail(invitation_id=invitation_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=JOB_OPTIONS["max_retries"], **TEAM_TASK)
def search_index_change(
    self: Task,
    tenant: str,
    project_key: str,
    number: int,
    comment_key: str | None = None,
    labels_also: list[str] | None = None,
) -> str:
    """Bring one search document up to the issue or comment as DynamoDB has it now (queued by ``activity.record``);
    for an issue, its ``labels`` entries too (``issues.issue_labels_reconcile``: 1 RCU + 4 RCU a label, a write
    only where one is stale — a writer that stopped between the issue's update and its entries). ``labels_also``:
    the labels the change added or removed (a removed label's entry is not among the issue's own labels).

    Idempotent and order-free (a document only takes a newer version). A busy database (SQLite's
    lock held past its timeout) is retried like a DynamoDB hiccup.
    """

    def work() -> str:
        if not comment_key:  # an issue's change: its label entries as the issue says now (idempotent)
            ddb_issues.issue_labels_reconcile(
                tenant=tenant, project_key=project_key, number=number, labels_also=labels_also or ()
            )
        return indexing.index_change(tenant=tenant, project_key=project_key, number=number, comment_key=comment_key)

    def transient(error: BaseException) -> bool:
        return is_transient(error) or (isinstance(error, OperationalError) and "locked" in str(error))

    return _retrying(self, work, transient=transient)


@shared_task(**JOB_OPTIONS)
def import_github_export(self: Task, tenant: str, import_id: str) -> dict:
    """An owner's uploaded GitHub export into its new project (the file waits in the imports storage)."""
    if import_get(tenant=tenant, import_id=import_id) is None:
        # Its record is gone (the team was offboarded while this waited): nothing to do, and no
        # job item of the team's made again by taking a fencing token for it.
        return {"job": import_job_name(tenant, import_id), "status": "gone"}
    try:
        return _run(
            self,
            import_job_name(tenant, import_id),
            lambda run: imports.import_run_job(run, tenant=tenant, import_id=import_id),
            tenant=tenant,
        )
    except (Retry, FencedOut):  # retried later, or a newer run of the same import carries on
        raise
    except Exception as error:  # failed for good (or out of retries): the progress page says so
        imports.import_stopped(tenant=tenant, import_id=import_id, error=error)
        raise


@shared_task(**JOB_OPTIONS)
def change_label(self: Task, tenant: str, name: str, actor: str) -> dict:
    """Move a renamed or deleted label's issues (more than a request moves): resumable, fenced, progress shown."""
    return _run(
        self,
        change_job_name(tenant, name),
        lambda run: labels.change_label_job(run, tenant=tenant, name=name, actor=actor),
        tenant=tenant,
    )


@shared_task(**JOB_OPTIONS)
def close_milestone(self: Task, tenant: str, project_key: str, milestone_id: str, *actor: Any) -> dict:
    """Move a closing milestone's open issues (more than a request moves; or Resume), then close it: resumable,
    fenced; where they go and the close's token are the milestone's own. ``actor`` is the last argument (a task
    queued by the previous version also carried the target, token and version before it)."""
    name = milestone_close.job_name(tenant, project_key, milestone_id)
    ids = {"tenant": tenant, "project_key": project_key, "milestone_id": milestone_id, "actor": str(actor[-1])}
    return _run(self, name, lambda run: milestone_close.milestone_close_job(run, **ids), tenant=tenant)
