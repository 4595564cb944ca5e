"""Default beat schedules, installed after ``migrate`` — created when missing, never overwritten.

Staff edit schedules in the admin (django-celery-beat); these are only the first values.
"""

from __future__ import annotations

from typing import Any

# name → (task, crontab fields (UTC), description)
DEFAULTS: dict[str, tuple[str, dict[str, str], str]] = {
    "rotate event tables": (
        "tracker.tasks.rotate_event_tables",
        {"minute": "5", "hour": "0"},
        "Create the next period's events table ahead of time; hot throughput on the current, cold on older.",
    ),
    "archive event tables": (
        "tracker.tasks.archive_event_tables",
        {"minute": "30", "hour": "1"},
        "Export events tables past retention to archive storage, verify, then drop them.",
    ),
    "enumerate projects": (
        "tracker.tasks.enumerate_projects",
        {"minute": "0", "hour": "2"},
        "Distinct project keys of the issues table, by the cheapest method.",
    ),
    "backfill project counts": (
        "tracker.tasks.backfill_project_counts",
        {"minute": "0", "hour": "3"},
        "Visit every project's collection and refresh its static item's issue counts (resumable).",
    ),
    "reconcile attachments": (
        "tracker.tasks.reconcile_attachments",
        {"minute": "*/15", "hour": "*"},
        "Finish or roll back attachments stuck in Attaching or Detaching longer than ATTACHMENT_STUCK_SECONDS.",
    ),
    "expire offboarding exports": (
        "tracker.tasks.expire_offboarding_exports",
        {"minute": "30", "hour": "4"},
        "Delete offboarded teams' exports OFFBOARDING_EXPORT_DAYS after offboarding; recorded on the retired slug.",
    ),
    "send due webhooks": (
        "tracker.tasks.webhook_due",
        {"minute": "*", "hour": "*"},
        "Queue the webhook deliveries whose next attempt is due (retries past 5 minutes, lost tasks, redeliveries).",
    ),
}


def install_defaults(**_: Any) -> list[str]:
    """Create the default periodic tasks that do not exist yet; return the names created."""
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    created = []
    for name, (task, cron, description) in DEFAULTS.items():
        if PeriodicTask.objects.filter(name=name).exists():
            continue
        schedule, _ = CrontabSchedule.objects.get_or_create(
            minute=cron["minute"],
            hour=cron["hour"],
            day_of_week="*",
            day_of_month="*",
            month_of_year="*",
            timezone="UTC",
        )
        PeriodicTask.objects.create(name=name, task=task, crontab=schedule, description=description)
        created.append(name)
    return created
