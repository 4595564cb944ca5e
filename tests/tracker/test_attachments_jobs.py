"""reconcile_attachments: as a job (run_job), a management command, a default schedule, and a
Celery task on a real worker that repairs a crash between the storage write and the state update."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import attachments
from ddbmodels.attachments import ATTACHED, ATTACHING, FAILED, AttachmentItem, LocalBlobStore
from tests.tracker.attachment_helpers import begin_attach
from tests.tracker.conftest import WorkerFactory, World
from tracker import tasks
from tracker.jobs import run_job
from tracker.schedules import DEFAULTS, install_defaults
from tracker.services.attachments import reconcile_attachments_job

CONTENT = b"written, then the process died\n" * 10


def crashed_attaches(world: World, media: Path) -> tuple[AttachmentItem, AttachmentItem]:
    """Two attaches that died: one after writing its file, one before."""
    items = [begin_attach(world, name, CONTENT) for name in ("written.txt", "never-written.txt")]
    LocalBlobStore(media).save(items[0].storage_name, io.BytesIO(CONTENT))
    return items[0], items[1]


def state_of(item: AttachmentItem) -> str:
    fresh = attachments.attachment_get_by_key(item.pk, item.attachment_id, consistent=True)
    assert fresh is not None
    return fresh.state


def test_the_job_completes_a_written_attach_rolls_back_an_unwritten_one_and_reports_capacity(
    world: World, media: Path
) -> None:
    written, unwritten = crashed_attaches(world, media)

    report = run_job("reconcile_attachments", lambda run: reconcile_attachments_job(run, older_than_seconds=0))

    assert report["status"] == "done"
    result = report["result"]
    assert result["completed"] >= 1
    assert result["rolled_back"] >= 1
    assert result["errors"] == 0
    assert (state_of(written), state_of(unwritten)) == (ATTACHED, FAILED)
    assert report["capacity"]["rcu"] > 0
    assert report["capacity"]["wcu"] >= 2 + 3 + 2  # complete, claim, fail (+ the fencing token)


def test_a_recent_attach_is_not_stuck_yet_and_is_left_alone(
    world: World, media: Path, settings: SettingsWrapper
) -> None:
    settings.ATTACHMENT_STUCK_SECONDS = 3600
    written, unwritten = crashed_attaches(world, media)
    report = run_job("reconcile_attachments", reconcile_attachments_job)
    assert report["status"] == "done"
    assert report["result"]["older_than_seconds"] == 3600
    assert (state_of(written), state_of(unwritten)) == (ATTACHING, ATTACHING)


def test_the_management_command_runs_the_job_and_prints_its_report(world: World, media: Path) -> None:
    written, _ = crashed_attaches(world, media)
    out = io.StringIO()
    call_command("reconcile_attachments", "--older-than", "0", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["job"] == "reconcile_attachments"
    assert report["status"] == "done"
    assert report["result"]["completed"] >= 1
    assert {"rcu", "wcu", "requests"} <= set(report["capacity"])
    assert state_of(written) == ATTACHED


def test_reconcile_attachments_is_a_default_schedule_every_fifteen_minutes() -> None:
    from django_celery_beat.models import PeriodicTask

    task, cron, _ = DEFAULTS["reconcile attachments"]
    assert (task, cron) == ("tracker.tasks.reconcile_attachments", {"minute": "*/15", "hour": "*"})
    install_defaults()
    scheduled = PeriodicTask.objects.get(name="reconcile attachments")
    assert (scheduled.task, scheduled.crontab.minute, scheduled.crontab.hour) == (task, "*/15", "*")


@pytest.mark.slow
def test_the_reconcile_task_repairs_a_crashed_attach_through_a_real_worker(
    world: World, media: Path, start_worker: WorkerFactory
) -> None:
    start_worker(MEDIA_ROOT=str(media))
    written, unwritten = crashed_attaches(world, media)

    report = tasks.reconcile_attachments.delay(older_than_seconds=0).get(timeout=120)

    assert report["status"] == "done"
    assert report["result"]["completed"] >= 1
    assert report["result"]["rolled_back"] >= 1
    assert report["capacity"]["wcu"] > 0
    assert (state_of(written), state_of(unwritten)) == (ATTACHED, FAILED)
    assert (media / written.storage_name).read_bytes() == CONTENT
    assert not (media / unwritten.storage_name).exists()
