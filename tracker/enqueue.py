"""Asking for background work: the one seam between the services and the Celery tasks.

Services and forms name a task (``enqueue.FAN_OUT_EVENT``) and call it through ``task(name)``;
they never import ``tracker.tasks``, which imports the services it runs (at the top, like any
module). ``task`` hands back the task Celery registered under that name — the same object
``tracker.tasks`` defines, so eager mode, ``apply``, and tests that replace its ``apply_async``
or ``delay`` all work as before. A process that has not loaded the tasks yet (a web process
queueing its first job) imports ``tracker.tasks`` then, once, whatever thread asks first.

``BROKER_ERRORS`` are what queueing raises when the broker (Redis) is down or frozen; each caller
says in its own words what was not started (a 503 with Retry-After) or logs and carries on.
"""

from __future__ import annotations

import importlib
from typing import Any

import kombu.exceptions
import redis
from celery import Task

from tracker.celery import app

TASKS_MODULE = "tracker.tasks"
PREFIX = TASKS_MODULE + "."
REFRESH_PROJECT_COUNTS = PREFIX + "refresh_project_counts"
DISTINCT_KEYS = PREFIX + "distinct_keys"
ENUMERATE_PROJECTS = PREFIX + "enumerate_projects"
BACKFILL_PROJECT_COUNTS = PREFIX + "backfill_project_counts"
ROTATE_EVENT_TABLES = PREFIX + "rotate_event_tables"
ARCHIVE_EVENT_TABLES = PREFIX + "archive_event_tables"
RESTORE_EVENT_TABLE = PREFIX + "restore_event_table"
RECONCILE_ATTACHMENTS = PREFIX + "reconcile_attachments"
OFFBOARD_TENANT = PREFIX + "offboard_tenant"
EXPIRE_OFFBOARDING_EXPORTS = PREFIX + "expire_offboarding_exports"
FAN_OUT_EVENT = PREFIX + "fan_out_event"
SEND_NOTIFICATION_DIGEST = PREFIX + "send_notification_digest"
SEARCH_INDEX_CHANGE = PREFIX + "search_index_change"
IMPORT_GITHUB_EXPORT = PREFIX + "import_github_export"
SEND_INVITATION_EMAIL = PREFIX + "send_invitation_email"
CLOSE_MILESTONE = PREFIX + "close_milestone"
CHANGE_LABEL = PREFIX + "change_label"
HISTORY_UNQUOTE = PREFIX + "history_unquote"
DELIVER_WEBHOOK = PREFIX + "deliver_webhook"
EMIT_WEBHOOKS = PREFIX + "emit_webhooks"
WEBHOOK_DUE = PREFIX + "webhook_due"

NAMES = frozenset(
    {
        REFRESH_PROJECT_COUNTS,
        DISTINCT_KEYS,
        ENUMERATE_PROJECTS,
        BACKFILL_PROJECT_COUNTS,
        ROTATE_EVENT_TABLES,
        ARCHIVE_EVENT_TABLES,
        RESTORE_EVENT_TABLE,
        RECONCILE_ATTACHMENTS,
        OFFBOARD_TENANT,
        EXPIRE_OFFBOARDING_EXPORTS,
        FAN_OUT_EVENT,
        SEND_NOTIFICATION_DIGEST,
        SEARCH_INDEX_CHANGE,
        IMPORT_GITHUB_EXPORT,
        SEND_INVITATION_EMAIL,
        CLOSE_MILESTONE,
        CHANGE_LABEL,
        HISTORY_UNQUOTE,
        DELIVER_WEBHOOK,
        EMIT_WEBHOOKS,
        WEBHOOK_DUE,
    }
)

BROKER_ERRORS: tuple[type[BaseException], ...] = (
    kombu.exceptions.OperationalError,
    redis.exceptions.RedisError,
    OSError,
)


def task(name: str) -> Task:
    """The Celery task registered as ``name`` (one of ``NAMES``); KeyError for a name no task has."""
    registry = app.tasks
    if name not in registry:
        # Importing the module registers its tasks. Not Celery's autodiscovery: while one thread runs
        # it, a second thread's call returns at once without importing anything (its global
        # _RACE_PROTECTION), so a threaded web server's second job found no task (NotRegistered, a
        # 500). Python's import lock makes a second thread wait for the module instead.
        importlib.import_module(TASKS_MODULE)
    return registry[name]


def delay(name: str, *args: Any, **kwargs: Any) -> Any:
    """Queue ``name`` with these arguments (``Task.delay``); raises one of ``BROKER_ERRORS`` when the broker is down."""
    return task(name).delay(*args, **kwargs)
