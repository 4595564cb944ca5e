"""django-celery-beat's periodic tasks in the admin under the staff's job rights (issue 20 finding 4, review blocker 1).

Running a schedule now, and adding, changing, enabling or deleting one, needs the right to start its
job (audit.run_destructive_jobs for a job that writes, tracker.change_tenant for one that reads);
each is in the staff audit. Before, the library's own admin ran "Run selected tasks" for anyone
who could see the list and saved any schedule for anyone with add/change on periodic tasks.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from unittest import mock

import pytest
from django.contrib import admin
from django.test import Client
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from tests.tracker.helpers import staff_user, text
from tracker import tasks
from tracker.audit.models import AuditEntry
from tracker.schedules import install_defaults

pytestmark = pytest.mark.django_db

LIST = "/admin/django_celery_beat/periodictask/"
VIEW = "django_celery_beat.view_periodictask"
EDIT = ("django_celery_beat.add_periodictask", "django_celery_beat.change_periodictask", VIEW)
RENAMER = "tracker.change_tenant"
DESTRUCTIVE = "audit.run_destructive_jobs"


def login(username: str, *perms: str) -> Client:
    client = Client()
    client.force_login(staff_user(username, perms=perms))
    return client


def run(client: Client, *names: str) -> Any:
    selected = [PeriodicTask.objects.get(name=name).pk for name in names]
    return client.post(LIST, {"action": "run_tasks", "_selected_action": selected})


def queued(task: Any) -> Any:
    return mock.patch.object(task, "apply_async", return_value=mock.Mock(id=str(uuid.uuid4())))


def form_post(task: str, **fields: str) -> dict[str, str]:
    """The change form's fields for a crontab schedule of ``task`` (the library's form, all of its inputs)."""
    crontab, _ = CrontabSchedule.objects.get_or_create(minute="0", hour="5")
    return {
        "name": f"nightly {task}",
        "regtask": "",
        "task": task,
        "enabled": "on",
        "description": "",
        "interval": "",
        "crontab": str(crontab.pk),
        "solar": "",
        "clocked": "",
        "start_time_0": "",
        "start_time_1": "",
        "args": "[]",
        "kwargs": "{}",
        "expires_0": "",
        "expires_1": "",
        "expire_seconds": "",
        "queue": "",
        "exchange": "",
        "routing_key": "",
        "priority": "",
        "headers": "{}",
        **fields,
    }


def test_the_admin_site_has_the_guarded_periodic_task_admin() -> None:
    """Registered by the admin's autodiscovery (this file does not import tracker.admin_schedules)."""
    assert type(admin.site._registry[PeriodicTask]).__name__ == "GuardedPeriodicTaskAdmin"


def test_view_only_staff_cannot_run_a_destructive_schedule_from_the_beat_admin() -> None:
    """The reviewer's test: change_tenant and view_periodictask ran archive_event_tables (it drops tables)."""
    install_defaults()
    client = login("renamer", RENAMER, VIEW)
    with queued(tasks.archive_event_tables) as sent:
        response = run(client, "archive event tables")
    assert response.status_code == 403
    assert not sent.called, "a destructive job was started without audit.run_destructive_jobs"
    assert not AuditEntry.objects.exists()


def test_one_destructive_schedule_refuses_the_whole_selection() -> None:
    install_defaults()
    client = login("renamer", RENAMER, VIEW)
    with queued(tasks.enumerate_projects) as read_only, queued(tasks.backfill_project_counts) as writes:
        assert run(client, "enumerate projects", "backfill project counts").status_code == 403
    assert not read_only.called
    assert not writes.called


def test_the_destructive_right_runs_a_schedule_audited_with_its_arguments() -> None:
    install_defaults()
    schedule = PeriodicTask.objects.get(name="archive event tables")
    schedule.kwargs = json.dumps({"dry_run": True})
    schedule.save()
    client = login("destroyer", DESTRUCTIVE, VIEW)
    seen: list[str] = []
    with queued(tasks.archive_event_tables) as sent:
        sent.side_effect = lambda **kw: seen.extend(AuditEntry.objects.values_list("outcome", flat=True)) or mock.Mock(
            id="task-1"
        )
        assert run(client, "archive event tables").status_code == 302
    sent.assert_called_once_with(
        args=[], kwargs={"dry_run": True}, headers={"periodic_task_name": "archive event tables"}
    )
    assert seen == ["pending"]  # the entry was there before the job was queued
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.result, entry.username) == ("job_start", "done", "task-1", "destroyer")
    assert entry.details["task"] == tasks.archive_event_tables.name
    assert entry.details["kwargs"] == {"dry_run": True}


def test_a_read_only_schedule_runs_with_change_tenant_and_is_audited() -> None:
    install_defaults()
    client = login("renamer", RENAMER, VIEW)
    with queued(tasks.enumerate_projects) as sent:
        assert run(client, "enumerate projects").status_code == 302
    sent.assert_called_once()
    assert AuditEntry.objects.get().target == "Run schedule enumerate projects"


def test_adding_a_destructive_schedule_is_a_form_error_and_saves_nothing() -> None:
    client = login("scheduler", RENAMER, *EDIT)
    post = form_post(tasks.offboard_tenant.name, kwargs=json.dumps({"slug": "acme"}))
    response = client.post(LIST + "add/", post)
    assert response.status_code == 200
    assert "audit.run_destructive_jobs" in text(response)
    assert not PeriodicTask.objects.filter(name=post["name"]).exists()
    assert not AuditEntry.objects.exists()
    # A task name no job list knows (the custom field) counts as one that writes.
    response = client.post(LIST + "add/", form_post("celery.backend_cleanup"))
    assert response.status_code == 200
    assert "schedules of read-only jobs need tracker.change_tenant" in text(response)
    assert not PeriodicTask.objects.filter(task="celery.backend_cleanup").exists()


def test_a_read_only_schedule_is_added_by_change_tenant_and_not_audited() -> None:
    client = login("scheduler", RENAMER, *EDIT)
    response = client.post(LIST + "add/", form_post(tasks.enumerate_projects.name))
    assert response.status_code == 302, text(response)
    assert PeriodicTask.objects.filter(task=tasks.enumerate_projects.name).exists()
    assert not AuditEntry.objects.exists()


def test_the_destructive_right_adds_a_destructive_schedule_audited() -> None:
    client = login("destroyer", DESTRUCTIVE, *EDIT)
    post = form_post(tasks.restore_event_table.name, kwargs=json.dumps({"table": "events-2026-01"}))
    assert client.post(LIST + "add/", post).status_code == 302
    assert PeriodicTask.objects.filter(name=post["name"]).exists()
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome) == ("schedule", "done")
    assert entry.details["schedules"] == [{"name": post["name"], "task": tasks.restore_event_table.name}]
    assert entry.details["fields"]["kwargs"] == '{"table": "events-2026-01"}'


def test_a_destructive_schedule_is_read_only_without_the_right_and_a_change_is_refused() -> None:
    install_defaults()
    schedule = PeriodicTask.objects.get(name="archive event tables")
    url = f"{LIST}{schedule.pk}/change/"
    client = login("scheduler", RENAMER, *EDIT)
    page = text(client.get(url))
    assert 'name="_save"' not in page  # shown read only
    # Turning it into a read-only job, or changing its arguments: refused, nothing saved.
    for post in (form_post(tasks.enumerate_projects.name), form_post(schedule.task, kwargs='{"dry_run": false}')):
        assert client.post(url, post).status_code == 403
    schedule.refresh_from_db()
    assert (schedule.task, schedule.kwargs, schedule.name) == (
        tasks.archive_event_tables.name,
        "{}",
        "archive event tables",
    )
    # Nor may a read-only schedule become a destructive one.
    reading = PeriodicTask.objects.get(name="enumerate projects")
    response = client.post(f"{LIST}{reading.pk}/change/", form_post(tasks.offboard_tenant.name, name=reading.name))
    assert response.status_code == 200
    reading.refresh_from_db()
    assert reading.task == tasks.enumerate_projects.name
    assert not AuditEntry.objects.exists()


def test_enabling_disabling_or_deleting_a_destructive_schedule_needs_the_right() -> None:
    install_defaults()
    PeriodicTask.objects.filter(name="archive event tables").update(enabled=False)
    pk = PeriodicTask.objects.get(name="archive event tables").pk
    client = login("scheduler", RENAMER, *EDIT, "django_celery_beat.delete_periodictask")
    for action in ("enable_tasks", "toggle_tasks"):
        assert client.post(LIST, {"action": action, "_selected_action": [pk]}).status_code == 403
    assert not PeriodicTask.objects.get(pk=pk).enabled
    expire = PeriodicTask.objects.get(name="expire offboarding exports").pk  # disabling it would keep exports
    assert client.post(LIST, {"action": "disable_tasks", "_selected_action": [expire]}).status_code == 403
    assert PeriodicTask.objects.get(pk=expire).enabled
    assert (
        client.post(LIST, {"action": "delete_selected", "_selected_action": [expire], "post": "yes"}).status_code == 403
    )
    assert client.post(f"{LIST}{expire}/delete/", {"post": "yes"}).status_code == 403
    assert PeriodicTask.objects.filter(pk=expire).exists()
    assert not AuditEntry.objects.exists()

    client.force_login(staff_user("destroyer", perms=(DESTRUCTIVE, *EDIT)))
    assert client.post(LIST, {"action": "enable_tasks", "_selected_action": [pk]}).status_code == 302
    assert PeriodicTask.objects.get(pk=pk).enabled
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.details["change"]) == ("schedule", "enabled")


def test_the_change_form_keeps_its_template_and_script() -> None:
    install_defaults()
    client = login("destroyer", DESTRUCTIVE, *EDIT)
    schedule = PeriodicTask.objects.get(name="archive event tables")
    page = text(client.get(f"{LIST}{schedule.pk}/change/"))
    assert 'id="readable-crontabs"' in page
    assert "tracker/admin/periodic_task.js" in page
    assert 'name="_save"' in page


def test_the_times_of_a_destructive_schedule_are_read_only_without_the_right() -> None:
    """Its crontab says when it runs; deleting the crontab would delete the schedule with it."""
    install_defaults()
    crontab = PeriodicTask.objects.get(name="expire offboarding exports").crontab
    assert crontab is not None
    url = f"/admin/django_celery_beat/crontabschedule/{crontab.pk}/"
    perms = ("change_crontabschedule", "delete_crontabschedule", "view_crontabschedule")
    client = login("scheduler", RENAMER, *EDIT, *(f"django_celery_beat.{p}" for p in perms))
    assert 'name="_save"' not in text(client.get(url + "change/"))
    assert client.post(url + "change/", {"minute": "*", "hour": "*"}).status_code == 403
    assert client.post(url + "delete/", {"post": "yes"}).status_code == 403
    crontab.refresh_from_db()
    assert (crontab.minute, crontab.hour) == ("30", "4")
    assert PeriodicTask.objects.filter(name="expire offboarding exports").exists()

    client.force_login(staff_user("destroyer", perms=(DESTRUCTIVE, *(f"django_celery_beat.{p}" for p in perms))))
    assert 'name="_save"' in text(client.get(url + "change/"))
