"""Time-series tables (patterns.time_series): rotation, archive, crash and rerun, restore, on DynamoDB Local."""

from __future__ import annotations

import contextlib
import gzip
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import pytest
from botocore.exceptions import ClientError

from ddbmodels import events
from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import AlreadyExists
from ddbmodels.core.storage import ArchiveStore, LocalDirStore
from ddbmodels.core.tables import PAY_PER_REQUEST, PROVISIONED, describe_table, provisioned_throughput
from ddbmodels.events import archive, rotate
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import ArchiveInvalid, archive_names, restore

pytestmark = [pytest.mark.ddblocal, pytest.mark.usefixtures("own_prefix")]  # tables of its own

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)  # monthly, retention 3: 2026-07 and older go, 2026-08 stays
RETENTION = 3


class Killed(BaseException):
    """The process dies here (not an Exception: nothing may catch it on the way out)."""


class LostOwnership(Exception):
    """What a fence raises when another run took the job over."""


@pytest.fixture
def archive_store(tmp_path: Path) -> LocalDirStore:
    return LocalDirStore(tmp_path / "archive")


def month_table(month: str, *, billing_mode: str = PAY_PER_REQUEST, throughput: tuple[int, int] = (5, 5)) -> str:
    name = events.period_table_name(month)
    events.create_events_table(name, billing_mode=billing_mode, throughput=throughput)
    return name


def filled_month(month: str, count: int) -> str:
    """The table of ``month`` (on demand), holding ``count`` plain events."""
    table = month_table(month)
    fill(table, plain_events(month, count))
    return table


def fill(table: str, items: list[dict[str, Any]]) -> None:
    client = connection.client()
    for start in range(0, len(items), 25):
        batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        assert not client.batch_write_item(RequestItems={table: batch}).get("UnprocessedItems")


def plain_events(month: str, count: int) -> list[dict[str, Any]]:
    start = time_series.parse_period_id(month)[1]
    return [
        events.event_item(
            stream=f"acme#WEB#{i % 7}",
            kind="issue.edited",
            actor="ann",
            tenant="acme",
            data={"i": i, "note": "x" * 100},
            when=start + timedelta(minutes=i),
            shards=4,
        )
        for i in range(count)
    ]


def odd_items() -> list[dict[str, Any]]:
    """Every attribute type, at its awkward edges."""
    return [
        {
            "s": {"S": "acme#WEB#odd"},
            "t": {"S": "2026-07-01T00:00:00.000Z#00000001"},
            "big": {"N": "12345678901234567890123456789012345678"},  # 38 significant digits
            "tiny": {"N": "-0.00000000000000000000000000000000000001"},
            "huge": {"N": "9.9999999999999999999999999999999999999E+125"},
            "bin": {"B": bytes(range(256))},
            "bins": {"BS": [b"\x00", b"\xff\xfe", b"plain"]},
            "labels": {"SS": ["ünïcödé", "日本語", "🎉", "z", "a"]},
            "nums": {"NS": ["1", "-1", "0.5", "1E+100"]},
            "flag": {"BOOL": False},
            "nothing": {"NULL": True},
            "data": {"M": {"nested": {"L": [{"S": "Ω"}, {"N": "3.14159265358979323846264338327950288"}, {"M": {}}]}}},
            "empty": {"S": ""},
        },
        {"s": {"S": "acme#WEB#odd"}, "t": {"S": "2026-07-01T00:00:00.001Z#00000002"}, "d": {"S": "acme#2026-07-01#1"}},
    ]


def scanned(table: str) -> set[bytes]:
    """Every item of the table, as canonical archive lines (sets sorted, binaries in base64)."""
    client = connection.client()
    lines: set[bytes] = set()
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**request)
        lines.update(time_series.item_line(item) for item in page["Items"])
        if "LastEvaluatedKey" not in page:
            return lines
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def exists(table: str) -> bool:
    return describe_table(table) is not None


class Fence:
    """Counts its calls; raises ``error`` from call number ``fail_at`` on."""

    def __init__(self, fail_at: int | None = None, error: BaseException | None = None) -> None:
        self.calls, self.fail_at, self.error = 0, fail_at, error

    def __call__(self) -> None:
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            assert self.error is not None
            raise self.error


class WrappingStore:
    """A LocalDirStore whose writes of one object go through ``hook`` (to damage or to crash)."""

    def __init__(self, inner: LocalDirStore, name_endswith: str, hook: Callable[[IO[bytes]], Any]) -> None:
        self.inner, self.name_endswith, self.hook = inner, name_endswith, hook

    @contextlib.contextmanager
    def open_write(self, name: str) -> Iterator[IO[bytes]]:
        with self.inner.open_write(name) as file:
            yield self.hook(file) if name.endswith(self.name_endswith) else file

    def open_read(self, name: str) -> AbstractContextManager[IO[bytes]]:
        return self.inner.open_read(name)

    def exists(self, name: str) -> bool:
        return self.inner.exists(name)

    def delete(self, name: str) -> None:
        self.inner.delete(name)

    def list(self, prefix: str) -> list[str]:
        return self.inner.list(prefix)


class FlipOneByte:
    """Passes writes through, but flips a byte in the middle of the 2nd chunk (a silent disk error)."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file, self.chunks = file, 0

    def write(self, chunk: bytes) -> int:
        self.chunks += 1
        if self.chunks == 2 and chunk:
            damaged = bytearray(chunk)
            damaged[len(damaged) // 2] ^= 0xFF
            chunk = bytes(damaged)
        return self.file.write(chunk)

    def flush(self) -> None:
        self.file.flush()


def crash_on_write(file: IO[bytes]) -> IO[bytes]:
    raise Killed("killed before the manifest was written")


# ---------------------------------------------------------------------------- tables and rotation


def test_list_event_tables_finds_the_prefixs_events_tables_sorted_by_period(own_prefix: str) -> None:
    for name in ("events-2026-11", "events-2026-W47", "events-2025-12-31", "events-junk", "issues"):
        events.create_events_table(f"{own_prefix}{name}", wait=False)

    found = events.list_event_tables()

    assert [(t.kind, t.period) for t in found] == [("day", "2025-12-31"), ("month", "2026-11"), ("week", "2026-W47")]
    assert found[2].start == datetime(2026, 11, 16, tzinfo=UTC)
    assert found[2].end == datetime(2026, 11, 23, tzinfo=UTC)


def test_rotate_creates_the_next_table_and_sets_hot_and_cold_throughput() -> None:
    older = month_table("2026-09", billing_mode=PROVISIONED, throughput=(20, 10))
    previous = month_table("2026-10", billing_mode=PROVISIONED, throughput=(20, 10))
    on_demand = month_table("2026-08")

    report = rotate("month", NOW, hot=(20, 10), cold=(2, 1), billing_mode=PROVISIONED)

    current, following = events.period_table_name("2026-11"), events.period_table_name("2026-12")
    assert (report.current, report.next) == (current, following)
    assert sorted(report.created) == sorted([current, following])
    assert sorted(report.changed) == sorted([older, previous])
    actions = {a.table: a.action for a in report.actions}
    assert actions == {
        on_demand: "on-demand",
        older: "cold",
        previous: "cold",
        current: "created",
        following: "created",
    }
    for name, expected in ((current, (20, 10)), (following, (20, 10)), (previous, (2, 1)), (older, (2, 1))):
        description = describe_table(name)
        assert description is not None
        assert provisioned_throughput(description) == expected, name
        assert provisioned_throughput(description["GlobalSecondaryIndexes"][0]) == expected, name
    assert "BillingModeSummary" in (describe_table(on_demand) or {})

    again = rotate("month", NOW, hot=(20, 10), cold=(2, 1), billing_mode=PROVISIONED)
    assert again.created == []
    assert again.changed == []
    assert {a.action for a in again.actions} == {"unchanged", "on-demand"}


def test_rotate_in_on_demand_mode_creates_on_demand_tables_and_leaves_them_alone() -> None:
    report = rotate("week", NOW, billing_mode=PAY_PER_REQUEST)

    assert sorted(report.created) == sorted(events.period_table_name(w) for w in ("2026-W47", "2026-W48"))
    again = rotate("week", NOW, billing_mode=PAY_PER_REQUEST)
    assert {a.action for a in again.actions} == {"on-demand"}


def test_rotate_reports_a_limit_exceeded_refusal_and_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    month_table("2026-09", billing_mode=PROVISIONED, throughput=(20, 10))
    month_table("2026-10", billing_mode=PROVISIONED, throughput=(20, 10))
    real = connection.client()

    class Refusing:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def update_table(self, **kwargs: Any) -> Any:
            if kwargs["TableName"].endswith("2026-09"):
                error = {"Code": "LimitExceededException", "Message": "Subscriber limit exceeded: decreases today"}
                raise ClientError({"Error": error}, "UpdateTable")
            return real.update_table(**kwargs)

    monkeypatch.setattr(connection, "client", Refusing)

    report = rotate("month", NOW, hot=(20, 10), cold=(2, 1), billing_mode=PROVISIONED)

    refused = [a for a in report.actions if a.action == "limit-exceeded"]
    assert [a.table for a in refused] == [events.period_table_name("2026-09")]
    assert "decreases are limited per day" in refused[0].line()
    assert report.changed == [events.period_table_name("2026-10")]  # the next table was still turned down


# ---------------------------------------------------------------------------- archive and restore


def test_archive_then_restore_round_trips_every_item_exactly(archive_store: LocalDirStore) -> None:
    old = month_table("2026-07")
    kept = month_table("2026-08")
    fill(old, plain_events("2026-07", 120) + odd_items())
    before = scanned(old)
    description_before = describe_table(old)
    fence = Fence()
    progress: list[tuple[int, int, str]] = []

    reports = archive("month", NOW, RETENTION, archive_store, fence=fence, on_progress=lambda *a: progress.append(a))

    assert [(r.table, r.action, r.items) for r in reports] == [(old, "archived", 122)]
    assert min(reports[0].export_rcu, reports[0].count_rcu, reports[0].bytes) > 0
    assert reports[0].rcu == pytest.approx(reports[0].export_rcu + reports[0].count_rcu)
    assert fence.calls == 1
    assert not exists(old)
    assert exists(kept)
    assert {stage for _, _, stage in progress} == {"export", "verify", "count"}
    manifest = json.loads(archive_store.path(archive_names(old)[1]).read_text())
    assert (manifest["item_count"], manifest["table"]) == (122, old)
    with gzip.open(archive_store.path(archive_names(old)[0])) as lines:
        assert set(lines) == before  # the data file is the items, line for line

    restored = restore(archive_store, old)

    assert (restored.table, restored.items) == (old, 122)
    assert scanned(old) == before
    description = describe_table(old)
    assert description is not None
    assert description_before is not None
    for key in ("KeySchema", "AttributeDefinitions"):
        assert description[key] == description_before[key]
    assert [i["KeySchema"] for i in description["GlobalSecondaryIndexes"]] == [
        i["KeySchema"] for i in description_before["GlobalSecondaryIndexes"]
    ]
    with pytest.raises(AlreadyExists):
        restore(archive_store, old)
    copy = restore(archive_store, f"events/{old}/manifest.json", table_name=f"{old}-copy")
    assert scanned(copy.table) == before


def test_archive_keeps_the_table_when_the_data_file_does_not_verify(archive_store: LocalDirStore) -> None:
    old = filled_month("2026-06", 300)
    damaging = WrappingStore(archive_store, "data.jsonl.gz", FlipOneByte)
    fence = Fence()

    (report,) = archive("month", NOW, RETENTION, damaging, fence=fence)

    assert (report.action, report.ok) == ("failed", False)
    assert "verification failed" in report.detail
    assert fence.calls == 0
    assert exists(old)
    assert time_series.count_items(old) == 300
    assert not archive_store.exists(archive_names(old)[1])  # no manifest claims a good archive
    assert archive_store.list(f"events/{old}/") == []  # and no data file outlives it
    with pytest.raises(ArchiveInvalid):
        restore(archive_store, old, table_name=f"{old}-copy")

    (rerun,) = archive("month", NOW, RETENTION, archive_store, fence=fence)  # the disk is healthy again
    assert (rerun.action, rerun.items, exists(old)) == ("archived", 300, False)


def test_archive_keeps_the_table_when_its_count_differs_from_the_archive(archive_store: LocalDirStore) -> None:
    old = filled_month("2026-05", 50)

    def straggler_write(done: int, total: int, stage: str) -> None:
        if stage == "count" and done == 0:  # a late writer, between the export and the count
            fill(old, plain_events("2026-05", 1))

    (report,) = archive("month", NOW, RETENTION, archive_store, fence=Fence(), on_progress=straggler_write)

    assert report.action == "failed"
    assert "the table holds 51 items, the archive 50" in report.detail
    assert exists(old)
    assert not archive_store.exists(archive_names(old)[1])
    # Nor is the data file left behind: without a manifest nothing lists it (offboarding would miss its items).
    assert archive_store.list(f"events/{old}/") == []


def test_a_crash_before_the_manifest_then_a_rerun_archives_and_drops(archive_store: LocalDirStore) -> None:
    old = filled_month("2026-07", 200)
    crashing = WrappingStore(archive_store, "manifest.json", crash_on_write)

    with pytest.raises(Killed):
        archive("month", NOW, RETENTION, crashing, fence=Fence())
    assert exists(old)
    assert archive_store.exists(archive_names(old)[0])
    assert not archive_store.exists(archive_names(old)[1])

    (rerun,) = archive("month", NOW, RETENTION, archive_store, fence=Fence())

    assert (rerun.action, rerun.items) == ("archived", 200)
    assert not exists(old)
    assert time_series.verify_archive(archive_store, old).items == 200


def test_a_crash_after_the_manifest_then_a_rerun_drops_without_exporting_again(archive_store: LocalDirStore) -> None:
    old = filled_month("2026-07", 200)

    with pytest.raises(Killed):
        archive(
            "month", NOW, RETENTION, archive_store, fence=Fence(fail_at=1, error=Killed("killed before DeleteTable"))
        )
    assert exists(old)
    assert archive_store.exists(archive_names(old)[1])

    with capacity.measure() as meter:
        (rerun,) = archive("month", NOW, RETENTION, archive_store, fence=Fence())

    assert (rerun.action, rerun.items, rerun.export_rcu) == ("resumed", 200, 0.0)
    assert meter.rcu == pytest.approx(rerun.count_rcu)  # only the COUNT scan: the good archive is not exported again
    assert not exists(old)

    (third,) = archive("month", NOW, RETENTION, archive_store, fence=Fence())
    assert (third.action, third.items, third.ok) == ("already_archived", 200, True)


def test_a_fence_that_raises_prevents_delete_table(archive_store: LocalDirStore) -> None:
    first, second = month_table("2026-06"), month_table("2026-07")
    fill(first, plain_events("2026-06", 10))
    fill(second, plain_events("2026-07", 10))
    fence = Fence(fail_at=1, error=LostOwnership("another worker owns the archive job now"))

    with pytest.raises(LostOwnership):
        archive("month", NOW, RETENTION, archive_store, fence=fence)

    assert fence.calls == 1
    assert exists(first)  # the run stopped at once: nothing dropped…
    assert exists(second)
    assert not archive_store.exists(archive_names(second)[0])  # …and the next table not even exported


def test_a_dry_run_changes_nothing(archive_store: LocalDirStore) -> None:
    old, resumable = month_table("2026-06"), month_table("2026-07")
    fill(old, plain_events("2026-06", 30))
    fill(resumable, plain_events("2026-07", 20))
    time_series.export_table(resumable, archive_store)  # as if a crash had struck before its DeleteTable
    files_before = archive_store.list("")
    fence = Fence()

    with capacity.measure() as meter:
        reports = archive("month", NOW, RETENTION, archive_store, fence=fence, dry_run=True)

    assert [(r.table, r.action, r.items) for r in reports] == [
        (old, "would_archive", 30),
        (resumable, "would_resume", 20),
    ]
    assert fence.calls == 0
    assert meter.by_operation["Scan"] == 0
    assert meter.wcu == 0
    assert exists(old)
    assert exists(resumable)
    assert archive_store.list("") == files_before


def test_retention_below_one_is_refused(archive_store: ArchiveStore) -> None:
    with pytest.raises(ValueError, match="retention"):
        archive("month", NOW, 0, archive_store, fence=Fence())
