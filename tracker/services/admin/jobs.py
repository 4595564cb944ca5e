"""Starting maintenance jobs from the admin: queue the Celery task, hand back its id.

Queueing goes through Celery's broker (Redis), with the socket timeouts and the one quick retry
of the settings: when Redis is down or frozen, ``Unavailable`` says so within seconds (the admin
shows it as a 503 in its own chrome) and no job was queued.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ddbmodels.core.errors import Unavailable
from tracker import enqueue

QUEUE_DOWN = "The job queue (Redis) is not answering, so the job was not started. Try again once Redis is back."


def _queue(start: Callable[..., Any], **kwargs: Any) -> str:
    """Call ``start`` (a task's ``delay``, looked up by the caller: a wrong name raises there, not here)."""
    try:
        return str(start(**kwargs).id)
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable(QUEUE_DOWN, queue_down=QUEUE_DOWN) from error


def job_start(*, task: str, params: dict[str, Any]) -> str:
    """Queue the job ``task`` (a ``tracker.enqueue`` name) with ``params``; the task id (Unavailable: Redis is down)."""
    return _queue(enqueue.task(task).delay, **params)


def reconcile_attachments_start() -> str:
    """Queue the reconcile-attachments job with its defaults (stuck past ATTACHMENT_STUCK_SECONDS)."""
    return _queue(enqueue.task(enqueue.RECONCILE_ATTACHMENTS).delay)
