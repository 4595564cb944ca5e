"""Maintenance jobs run from management commands: resumable backfill, archive on S3 (moto), dry runs."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from django.core.management import call_command
from django.test import override_settings
from moto import mock_aws

from ddbmodels import events, issues, jobs
from ddbmodels.patterns import time_series
from tests.tracker.conftest import World
from tracker.jobs import JobRun, run_job
from tracker.services import maintenance
from tracker.storage import DjangoArchiveStore


def make_projects(world: World, keys: list[str]) -> None:
    for key in keys:
        issues.project_create(tenant=world.slug, key=key, name=key, created_by="x")
        issues.issue_create(tenant=world.slug, project_key=key, title="t", reporter="x")


def test_an_interrupted_backfill_resumes_after_its_checkpoint(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = [f"B{n:02d}" for n in range(25)]
    make_projects(world, keys)
    visited: list[str] = []
    real_refresh = maintenance.project_counts_refresh

    def crash_after_twelve(*, tenant: str, key: str) -> dict[str, int]:
        if len(visited) == 12:
            raise RuntimeError("worker died")
        visited.append(f"{tenant}#{key}")
        return real_refresh(tenant=tenant, key=key)

    monkeypatch.setattr(maintenance, "project_counts_refresh", crash_after_twelve)
    with pytest.raises(RuntimeError):
        run_job("backfill_project_counts", lambda run: maintenance.backfill_project_counts_job(run, method="scan"))
    state = jobs.job_state("backfill_project_counts")
    assert state is not None
    assert state.checkpoint is not None  # saved every 10 projects: the first ten are not redone
    checkpoint = state.checkpoint

    monkeypatch.setattr(maintenance, "project_counts_refresh", real_refresh)
    report = run_job("backfill_project_counts", lambda run: maintenance.backfill_project_counts_job(run, method="scan"))
    result = report["result"]
    assert result["resumed_after"] == checkpoint
    assert result["refreshed"] + result["orphans"] == len([k for k in _all_collections() if k > checkpoint])
    assert jobs.job_state("backfill_project_counts").checkpoint is None  # type: ignore[union-attr]
    for key in keys:
        project = issues.project_get(tenant=world.slug, key=key)
        assert project is not None
        assert project.live_count("open") == 1


def _all_collections() -> list[str]:
    from ddbmodels import table_name
    from ddbmodels.patterns.distinct_keys import distinct_keys

    return sorted(str(k) for k in distinct_keys(table_name("issues"), "scan").keys)


def test_the_backfill_command_prints_its_report_and_capacity(world: World) -> None:
    make_projects(world, ["CMD"])
    out = io.StringIO()
    call_command("backfill_project_counts", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "done"
    assert report["capacity"]["wcu"] >= 1
    assert report["result"]["refreshed"] >= 1


@pytest.fixture
def old_events_table() -> str:
    """A day table from a past day no other test uses, holding 40 events."""
    when = datetime.now(UTC) - timedelta(days=next(_past_days))
    tenant = f"arch{uuid.uuid4().hex[:6]}"
    name = events.events_table_name("day", when)
    events.create_events_table(name)
    from ddbmodels.core import connection

    client = connection.client()
    for n in range(40):
        item = events.event_item(
            stream=f"{tenant}#WEB#{n}",
            kind="issue.created",
            actor="a",
            tenant=tenant,
            data={"n": n},
            when=when,
            shards=4,
        )
        client.put_item(TableName=name, Item=item)
    return name


_past_days = iter(range(30, 400))


def _table_exists(name: str) -> bool:
    return name in {t.name for t in events.list_event_tables()}


@override_settings(EVENTS_PERIOD="day", EVENTS_RETENTION=2)
def test_archive_dry_run_says_what_it_would_do_and_changes_nothing(old_events_table: str, tmp_path: Any) -> None:
    with override_settings(STORAGES=_fs_storages(tmp_path)):
        out = io.StringIO()
        call_command("archive_event_tables", "--dry-run", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["status"], report["result"]["dry_run"]) == ("done", True)
    planned = {t["table"]: (t["action"], t["items"]) for t in report["result"]["tables"]}
    assert planned[old_events_table] == ("would_archive", 40)  # never exported: archive, not resume
    assert _table_exists(old_events_table)
    assert not list(tmp_path.rglob("*.*"))  # no data file, no manifest


@override_settings(EVENTS_PERIOD="day", EVENTS_RETENTION=2)
def test_archive_to_s3_and_restore_from_it_round_trip_every_item(old_events_table: str) -> None:
    before = time_series.count_items(old_events_table)
    # moto serves S3 only; DynamoDB calls still go to DynamoDB Local.
    with mock_aws(config={"core": {"service_whitelist": ["s3"]}}):
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="tracker-archive-test")
        s3 = {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": "tracker-archive-test", "location": "archive", "file_overwrite": True},
        }
        with override_settings(STORAGES={"default": s3, "staticfiles": s3, "archive": s3}):
            from django.core.files.storage import storages

            storages._storages.pop("archive", None)  # the handler caches storages by alias
            call_command("archive_event_tables", stdout=io.StringIO())
            assert not _table_exists(old_events_table)
            store = DjangoArchiveStore()
            assert store.exists(f"events/{old_events_table}/manifest.json")
            keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket="tracker-archive-test")["Contents"]]
            assert f"archive/events/{old_events_table}/data.jsonl.gz" in keys
            assert time_series.verify_archive(store, old_events_table).ok

            out = io.StringIO()
            call_command("restore_event_table", "--list", stdout=out)
            assert old_events_table in out.getvalue().split()
            call_command(
                "restore_event_table", old_events_table, "--table", f"{old_events_table}-copy", stdout=io.StringIO()
            )
            storages._storages.pop("archive", None)
    assert time_series.count_items(f"{old_events_table}-copy") == before == 40


def _fs_storages(tmp_path: Any) -> dict[str, Any]:
    fs = {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(tmp_path)}}
    return {"default": fs, "staticfiles": fs, "archive": {**fs, "OPTIONS": {**fs["OPTIONS"], "allow_overwrite": True}}}


def test_a_second_run_of_a_job_while_one_is_running_is_refused_by_the_command(world: World) -> None:
    from django.core.management.base import CommandError

    refused: list[str] = []

    def nested(run: JobRun) -> dict[str, Any]:
        with pytest.raises(CommandError, match="skipped") as raised:
            call_command("rotate_event_tables", stdout=io.StringIO())
        refused.append(str(raised.value))
        return {"refused": len(refused)}

    report = run_job("rotate_event_tables", nested)

    assert len(refused) == 1, "the job ran, and the command inside it was refused"
    assert (report["status"], report["result"]) == ("done", {"refused": 1})


@override_settings(EVENTS_PERIOD="day", EVENTS_RETENTION=2)
def test_a_restore_is_refused_while_a_team_s_offboarding_has_begun_and_not_finished(
    old_events_table: str, tmp_path: Any
) -> None:
    """Between two runs of an offboarding (it stopped after its export), a restore would write the team's events
    back into a table its delete list does not name: the command and the admin's form refuse it, saying why, and
    queue nothing (review, should 6)."""
    from unittest import mock

    from django.core.management.base import CommandError

    from tests.tracker.helpers import staff_client
    from tracker import tasks
    from tracker.models import RetiredSlug

    with override_settings(STORAGES=_fs_storages(tmp_path)):
        call_command("archive_event_tables", stdout=io.StringIO())
        assert not _table_exists(old_events_table)
        retired = RetiredSlug.objects.create(slug=f"gone-{uuid.uuid4().hex[:6]}", reason=RetiredSlug.Reason.OFFBOARDING)

        with pytest.raises(CommandError, match="refused, A team's offboarding has begun and not finished") as refused:
            call_command("restore_event_table", old_events_table, stdout=io.StringIO())
        assert retired.slug not in str(refused.value)  # never which team
        assert not _table_exists(old_events_table)  # nothing was restored
        client = staff_client("operator", may_change=True)
        with mock.patch.object(tasks.restore_event_table, "delay") as delay:
            response = client.post("/admin/ddb/jobs/", {"job": "restore", "restore-archive": old_events_table})
        assert response.status_code == 400
        assert "A team&#x27;s offboarding has begun and not finished" in response.content.decode()
        delay.assert_not_called()

        retired.reason = RetiredSlug.Reason.OFFBOARDED  # the offboarding finished: restoring is safe again
        retired.save()
        call_command("restore_event_table", old_events_table, stdout=io.StringIO())
    assert time_series.count_items(old_events_table) == 40
