"""django-celery-beat's periodic tasks in the admin, under the staff's job rights (issue 20, finding 4).

The library's own ``PeriodicTaskAdmin`` let anyone who could see the list "Run selected tasks" (no
permission, no audit) and anyone with add/change on periodic tasks schedule any task with any
arguments. It is replaced on the admin site by ``GuardedPeriodicTaskAdmin``:

- "Run selected tasks" goes through ``schedule_run_now``: the right to start each job (``JOB_KINDS``:
  ``audit.run_destructive_jobs`` for a job that writes, any task it does not name included;
  ``tracker.change_tenant`` for one that reads), then the staff audit entry, then the queue. One
  schedule the user may not start refuses the whole selection (403, nothing queued).
- Adding, changing, enabling, disabling, toggling or deleting a schedule needs the same right for its
  task (before and after the change): a form error or a 403, nothing saved. A schedule the user may
  not change is shown read only.
- The times (crontab, interval, solar, clocked) of a periodic task the user may not change are read
  only too (deleting them would delete it).
- Each change of a schedule of a job that writes is in the staff audit (``Action.SCHEDULE``), written
  in the change's own transaction: committed with it or not at all.

The change form keeps the library's template (templates/admin/djcelery/change_periodictask_form.html).
"""

from __future__ import annotations

from typing import Any

import django_celery_beat.admin as beat_admin  # registers the library's admin first, whatever the apps' order
from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django_celery_beat.models import ClockedSchedule, CrontabSchedule, IntervalSchedule, PeriodicTask, SolarSchedule
from kombu.utils.json import loads

from tracker.services.admin.audit import Action, audit_with_change
from tracker.services.admin.jobs import job_is_destructive, job_require, schedule_may_change, schedule_run_now
from tracker.services.permissions import RUN_DESTRUCTIVE_JOBS

NO_SCHEDULE = (
    "Schedules of jobs that write or delete data (every task but the read-only jobs) need superuser status "
    f"or the {RUN_DESTRUCTIVE_JOBS} permission; schedules of read-only jobs need tracker.change_tenant."
)
SHOWN_MAX = 200  # characters of a changed field's value kept in the audit


def _shown(value: Any) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= SHOWN_MAX else f"{text[:SHOWN_MAX]}… ({len(text)} characters)"


class GuardedPeriodicTaskAdmin(beat_admin.PeriodicTaskAdmin):
    """The library's admin (its form, fields and template) with the job rights and the audit."""

    # ----------------------------------------------------------------------------- rights

    def has_change_permission(self, request: HttpRequest, obj: PeriodicTask | None = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or schedule_may_change(request.user, obj.task))

    def has_delete_permission(self, request: HttpRequest, obj: PeriodicTask | None = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or schedule_may_change(request.user, obj.task))

    def get_form(self, request: HttpRequest, obj: PeriodicTask | None = None, change: bool = False, **kwargs: Any):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, change, **kwargs)
        user, old_task = request.user, obj.task if obj is not None else ""

        class GuardedForm(form):  # type: ignore[misc,valid-type]
            def clean(self) -> dict[str, Any]:
                data = super().clean()
                if not schedule_may_change(user, old_task, data.get("task") or ""):
                    raise forms.ValidationError(NO_SCHEDULE)
                return data

        return GuardedForm

    def changeform_view(self, request: HttpRequest, object_id: str | None = None, *args: Any, **kwargs: Any) -> Any:
        obj = self.get_object(request, object_id) if object_id and request.method == "GET" else None
        if (
            obj is not None
            and super().has_change_permission(request, obj)
            and not self.has_change_permission(request, obj)
        ):
            self.message_user(request, f"This schedule is read only for you. {NO_SCHEDULE}", messages.WARNING)
        return super().changeform_view(request, object_id, *args, **kwargs)

    def _require(self, request: HttpRequest, tasks: list[str]) -> None:
        if not schedule_may_change(request.user, *tasks):
            raise PermissionDenied(NO_SCHEDULE)

    # ----------------------------------------------------------------------------- audit

    def _audit(self, request: HttpRequest, schedules: list[tuple[str, str]], change: str, **details: Any) -> None:
        """One entry for those of ``schedules`` (name, task) whose job writes; in the caller's transaction."""
        written = [(name, task) for name, task in schedules if job_is_destructive(task)]
        if not written:
            return
        by: AbstractBaseUser = request.user  # type: ignore[assignment]
        names = ", ".join(name for name, _ in written)
        audit_with_change(
            by=by,
            action=Action.SCHEDULE,
            target=f"Schedule {change}: {names}",
            details={"change": change, "schedules": [{"name": n, "task": t} for n, t in written], **details},
        )

    def save_model(self, request: HttpRequest, obj: PeriodicTask, form: Any, change: bool) -> None:
        old_task = self.model.objects.filter(pk=obj.pk).values_list("task", flat=True).first() if change else ""
        self._require(request, [old_task or "", obj.task])
        changed = {field: _shown(form.cleaned_data.get(field)) for field in form.changed_data}
        self._audit(
            request,
            [(obj.name, obj.task), *([(obj.name, old_task)] if old_task and old_task != obj.task else [])],
            "changed" if change else "added",
            fields=changed,
        )
        super().save_model(request, obj, form, change)

    def delete_model(self, request: HttpRequest, obj: PeriodicTask) -> None:
        self._require(request, [obj.task])
        with transaction.atomic():
            self._audit(request, [(obj.name, obj.task)], "deleted")
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[PeriodicTask]) -> None:
        schedules = list(queryset.values_list("name", "task"))
        self._require(request, [task for _, task in schedules])
        with transaction.atomic():
            self._audit(request, schedules, "deleted")
            super().delete_queryset(request, queryset)

    # ----------------------------------------------------------------------------- actions

    def _bulk(self, request: HttpRequest, queryset: QuerySet[PeriodicTask], change: str) -> list[tuple[str, str]]:
        schedules = list(queryset.values_list("name", "task"))
        self._require(request, [task for _, task in schedules])
        self._audit(request, schedules, change)
        return schedules

    @admin.action(description="Enable selected tasks", permissions=["change"])
    def enable_tasks(self, request: HttpRequest, queryset: QuerySet[PeriodicTask]) -> None:
        with transaction.atomic():
            self._bulk(request, queryset, "enabled")
            super().enable_tasks(request, queryset)

    @admin.action(description="Disable selected tasks", permissions=["change"])
    def disable_tasks(self, request: HttpRequest, queryset: QuerySet[PeriodicTask]) -> None:
        with transaction.atomic():
            self._bulk(request, queryset, "disabled")
            super().disable_tasks(request, queryset)

    @admin.action(description="Toggle activity of selected tasks", permissions=["change"])
    def toggle_tasks(self, request: HttpRequest, queryset: QuerySet[PeriodicTask]) -> None:
        with transaction.atomic():
            self._bulk(request, queryset, "toggled")
            super().toggle_tasks(request, queryset)

    @admin.action(description="Run selected tasks")
    def run_tasks(self, request: HttpRequest, queryset: QuerySet[PeriodicTask]) -> None:
        """Each selected schedule's task queued now with its arguments: the job's right, then its audit entry.

        Not in a transaction (the admin's actions run outside one): each entry is committed before its job is queued.
        """
        schedules = list(queryset)
        for schedule in schedules:
            job_require(request.user, schedule.task)  # 403 for the whole selection, nothing queued
        by: AbstractBaseUser = request.user  # type: ignore[assignment]
        for schedule in schedules:
            options: dict[str, Any] = {"headers": {"periodic_task_name": schedule.name}}
            if schedule.queue:
                options["queue"] = schedule.queue
            try:
                task_id = schedule_run_now(
                    task=schedule.task,
                    args=loads(schedule.args or "[]"),
                    kwargs=loads(schedule.kwargs or "{}"),
                    options=options,
                    name=schedule.name,
                    by=by,
                )
            except KeyError:
                self.message_user(request, f'Task "{schedule.task}" not found.', messages.ERROR)
                continue
            self.message_user(request, f"{schedule.name}: queued as {task_id} (in the staff audit).", messages.SUCCESS)


class GuardedTimesMixin:
    """A crontab, interval, solar or clocked schedule says when its periodic tasks run: changing it (or
    deleting it, which deletes them) needs the right to change each of them; otherwise shown read only."""

    def _may(self, request: HttpRequest, obj: Any, allowed: bool) -> bool:
        if not allowed or obj is None:
            return allowed
        return schedule_may_change(request.user, *obj.periodictask_set.values_list("task", flat=True))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may(request, obj, super().has_change_permission(request, obj))  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may(request, obj, super().has_delete_permission(request, obj))  # type: ignore[misc]


class GuardedCrontabScheduleAdmin(GuardedTimesMixin, beat_admin.CrontabScheduleAdmin):
    pass


class GuardedIntervalScheduleAdmin(GuardedTimesMixin, beat_admin.IntervalScheduleAdmin):
    pass


class GuardedSolarScheduleAdmin(GuardedTimesMixin, beat_admin.SolarScheduleAdmin):
    pass


class GuardedClockedScheduleAdmin(GuardedTimesMixin, beat_admin.ClockedScheduleAdmin):
    pass


for model, model_admin in (
    (PeriodicTask, GuardedPeriodicTaskAdmin),
    (CrontabSchedule, GuardedCrontabScheduleAdmin),
    (IntervalSchedule, GuardedIntervalScheduleAdmin),
    (SolarSchedule, GuardedSolarScheduleAdmin),
    (ClockedSchedule, GuardedClockedScheduleAdmin),
):
    admin.site.unregister(model)
    admin.site.register(model, model_admin)
