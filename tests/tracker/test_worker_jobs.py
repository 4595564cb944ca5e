"""Every maintenance job through a real Celery worker; a worker killed mid-archive loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from celery.result import AsyncResult

from ddbmodels import events, issues
from ddbmodels.core import connection
from ddbmodels.patterns import time_series
from tests.tracker.conftest import WorkerFactory, World
from tracker import tasks

pytestmark = pytest.mark.slow
RESULT_TIMEOUT = 120


def old_day(days_ago: int) -> datetime:
    return datetime.now(UTC) - timedelta(days=days_ago)


def make_old_events_table(days_ago: int, items: int, tenant: str = "acme", note_bytes: int = 200) -> str:
    """An events table of a past day, filled with ``items`` events (BatchWriteItem)."""
    when = old_day(days_ago)
    name = events.events_table_name("day", when)
    events.create_events_table(name)
    client = connection.client()
    batch: list[dict[str, Any]] = []
    for n in range(items):
        item = events.event_item(
            stream=f"{tenant}#WEB#{n % 97 + 1}",
            kind="issue.edited",
            actor="loader",
            tenant=tenant,
            data={"n": n, "note": "x" * note_bytes},
            when=when + timedelta(milliseconds=n),
            shards=4,
        )
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25 or n == items - 1:
            pending: dict[str, Any] = {name: batch}
            while pending:
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            batch = []
    return name


def table_exists(name: str) -> bool:
    return name in {t.name for t in events.list_event_tables()}


def manifest_of(archive_dir: Path, table: str) -> dict[str, Any]:
    return json.loads((archive_dir / "events" / table / "manifest.json").read_text())


WORKER_ENV = {"EVENTS_PERIOD": "day", "EVENTS_RETENTION": "2", "JOB_LOCK_SECONDS": "4"}


def test_distinct_keys_enumerate_and_backfill_run_on_the_worker(world: World, start_worker: WorkerFactory) -> None:
    start_worker(**WORKER_ENV)
    for title in ("a", "b", "c"):
        issues.issue_create(tenant=world.slug, project_key="WEB", title=title, reporter="x")

    report = tasks.distinct_keys.delay(connection.table_name("issues"), "scan", 2).get(timeout=RESULT_TIMEOUT)
    assert report["status"] == "done"
    assert report["result"]["report"]["distinct_keys"] >= 1
    assert report["capacity"]["rcu"] > 0

    enumerated = tasks.enumerate_projects.delay().get(timeout=RESULT_TIMEOUT)
    assert enumerated["status"] == "done"
    assert enumerated["result"]["projects"] >= 1

    backfill = tasks.backfill_project_counts.delay().get(timeout=RESULT_TIMEOUT)
    assert backfill["status"] == "done"
    assert backfill["result"]["refreshed"] >= 1

    project = issues.project_get(tenant=world.slug, key="WEB")
    assert project is not None
    assert project.live_count("open") == 3


def test_rotate_archive_and_restore_run_on_the_worker(start_worker: WorkerFactory, tmp_path: Path) -> None:
    start_worker(**WORKER_ENV)
    old = make_old_events_table(days_ago=9, items=120)

    rotated = tasks.rotate_event_tables.delay().get(timeout=RESULT_TIMEOUT)
    assert rotated["status"] == "done"
    # The day after the worker's own clock (the test's may already be a day further, near midnight).
    worker_now = datetime.fromisoformat(rotated["result"]["now"])
    tomorrow = events.events_table_name("day", worker_now + timedelta(days=1))
    assert rotated["result"]["next"] == tomorrow
    assert table_exists(tomorrow)

    dry = tasks.archive_event_tables.delay(dry_run=True).get(timeout=RESULT_TIMEOUT)
    assert dry["status"] == "done"
    assert table_exists(old)

    archived = tasks.archive_event_tables.delay().get(timeout=RESULT_TIMEOUT)
    assert archived["status"] == "done"
    assert not table_exists(old)
    assert manifest_of(tmp_path / "archive", old)["item_count"] == 120

    restored = tasks.restore_event_table.delay(old).get(timeout=RESULT_TIMEOUT)
    assert restored["status"] == "done"
    assert time_series.count_items(old) == 120


def export_under_way(result: AsyncResult) -> dict[str, Any] | None:
    """The run's last progress report when it says the export has begun and not finished, else None."""
    info = result.info if result.state == "PROGRESS" else None
    if isinstance(info, dict) and info.get("stage") == "export" and 0 < info["done"] < info["total"]:
        return info
    return None


def stop_mid_export(worker: subprocess.Popen[bytes], result: AsyncResult) -> dict[str, Any]:
    """SIGSTOP the worker once its archive run reports the export under way; the last report before the stop.

    The worker is frozen first and its report read after: a report of an unfinished export read then
    proves the stop landed mid-export (the data file is not written yet: it is stored whole at the end).
    """
    deadline = time.monotonic() + RESULT_TIMEOUT
    while time.monotonic() < deadline:
        if export_under_way(result) is not None:
            os.killpg(worker.pid, signal.SIGSTOP)
            last = export_under_way(result)  # read after the stop: nothing can move it any more
            assert last is not None, f"the export ended before the worker stopped: {result.state} {result.info}"
            return last
        assert worker.poll() is None, "the worker died"
        time.sleep(0.005)
    pytest.fail(f"the archive run never reported its export under way (last: {result.state} {result.info})")


def test_a_worker_killed_mid_archive_then_a_rerun_archives_everything_and_drops_the_table(
    start_worker: WorkerFactory, tmp_path: Path
) -> None:
    items = 6000
    # ~3 MB in one scan segment: the export reads three 1 MB pages one after the other, so it is
    # under way for a good part of a second between its first report and its last.
    old = make_old_events_table(days_ago=12, items=items, note_bytes=400)
    before = time_series.count_items(old)
    worker = start_worker(**WORKER_ENV, EVENTS_ARCHIVE_SEGMENTS="1")

    progress = stop_mid_export(worker, tasks.archive_event_tables.delay())
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()

    assert progress["stage"] == "export"
    assert 0 < progress["done"] < progress["total"] == items  # killed with part of the table exported…
    assert table_exists(old)  # …so the table is still there…
    assert not (tmp_path / "archive" / "events" / old).exists()  # …and neither data file nor manifest was stored
    time.sleep(int(WORKER_ENV["JOB_LOCK_SECONDS"]) + 1)  # the dead run's lock expires
    start_worker(**WORKER_ENV)
    result = tasks.archive_event_tables.delay().get(timeout=RESULT_TIMEOUT)

    assert result["status"] == "done"
    assert not table_exists(old)
    manifest = manifest_of(tmp_path / "archive", old)
    assert manifest["item_count"] == before == items
    verification = time_series.verify_archive(_store(tmp_path), old)
    assert verification.ok, verification.detail


def test_two_archive_runs_started_together_one_works_and_the_other_skips(
    start_worker: WorkerFactory, tmp_path: Path
) -> None:
    old = make_old_events_table(days_ago=15, items=3000)
    start_worker(concurrency=2, **WORKER_ENV)
    first = tasks.archive_event_tables.delay()
    second = tasks.archive_event_tables.delay()
    statuses = sorted(r.get(timeout=RESULT_TIMEOUT)["status"] for r in (first, second))
    assert statuses == ["done", "skipped"]
    assert not table_exists(old)
    assert manifest_of(tmp_path / "archive", old)["item_count"] == 3000


def _store(tmp_path: Path) -> Any:
    from ddbmodels.core.storage import LocalDirStore

    return LocalDirStore(tmp_path / "archive")
