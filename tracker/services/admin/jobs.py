"""Starting maintenance jobs from the admin: queue the Celery task, hand back its id."""

from __future__ import annotations

from tracker import tasks
from tracker.forms.admin.jobs import JobForm


def job_start(*, form: JobForm) -> str:
    """Queue the form's job with its validated parameters; the task id."""
    return str(form.task.delay(**form.kwargs()).id)


def reconcile_attachments_start() -> str:
    """Queue the reconcile-attachments job with its defaults (stuck past ATTACHMENT_STUCK_SECONDS)."""
    return str(tasks.reconcile_attachments.delay().id)
