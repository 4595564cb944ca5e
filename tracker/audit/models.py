"""The staff audit: one row per raw item edit or delete, job start, offboarding and change of a beat schedule
of a job that writes (made in the schedule's own transaction), written before the change.

A row is created ``pending`` before anything is written or queued, then marked ``done`` (with the
task id of a job) or ``failed`` (with the error). A process that dies in between leaves it
``pending``: the record of the attempt survives whatever happened to the change.

It holds what changed, not a copy of the team's content: for an item edit the table, the key and
each changed attribute's old and new value (only names and sizes when a value is long); for a
delete the key and the attributes' names and sizes; for a job its parameters. ``tenant`` is the
team a row concerns ("" for all teams or none): offboarding deletes the team's rows by it.

The two permissions of the Meta are the staff's rights that ``tracker.change_tenant`` does not
give (superusers have every permission): raw item edits, and jobs that write or delete data.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEntry(models.Model):
    class Action(models.TextChoices):
        ITEM_CHANGE = "item_change", "Item edited (raw PutItem)"
        ITEM_DELETE = "item_delete", "Item deleted (raw DeleteItem)"
        JOB_START = "job_start", "Job started"
        OFFBOARD = "offboard", "Offboarding started"
        SCHEDULE = "schedule", "Job schedule changed"

    class Outcome(models.TextChoices):
        PENDING = "pending", "Started, no answer recorded (the process may have stopped)"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    username = models.CharField(max_length=150, help_text="kept when the account is deleted")
    action = models.CharField(max_length=12, choices=Action.choices)
    tenant = models.CharField(
        max_length=50, blank=True, db_index=True, help_text="the team concerned; empty: all or none"
    )
    target = models.CharField(max_length=300, help_text="the table and key, or the job")
    details = models.JSONField(default=dict, blank=True, help_text="what changed, or the job's parameters")
    outcome = models.CharField(max_length=8, choices=Outcome.choices, default=Outcome.PENDING)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.CharField(max_length=500, blank=True, help_text="the job's task id, or the error")

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "staff audit entry"
        verbose_name_plural = "staff audit"
        permissions = [
            ("edit_raw_items", "Can edit and delete raw DynamoDB items in the item browser"),
            ("run_destructive_jobs", "Can start jobs that write or delete data, and offboard teams"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.target} by {self.username}"
