"""``archive``: tables past retention exported, verified, counted, fenced and dropped, resuming where a run stopped."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from ddbmodels.core import capacity, tables
from ddbmodels.core.keys import as_utc, utcnow
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.patterns.time_series.archive_format import (
    ARCHIVE_ROOT,
    MANIFEST_FILE,
    ArchiveInvalid,
    Progress,
    archive_names,
    data_name,
)
from ddbmodels.patterns.time_series.export import export_table
from ddbmodels.patterns.time_series.family import PeriodTables
from ddbmodels.patterns.time_series.periods import PeriodKind, period_shift
from ddbmodels.patterns.time_series.tables import count_items, list_period_tables
from ddbmodels.patterns.time_series.verify import read_manifest, verify_archive

Fence = Callable[[], object]


@dataclass
class ArchiveReport:
    """What ``archive`` did (or, dry run, would do) with one table."""

    table: str
    period: str
    action: str  # archived | resumed | already_archived | would_archive | would_resume | failed | corrupt | busy
    items: int = 0
    bytes: int = 0
    rcu: float = 0.0
    wcu: float = 0.0
    export_rcu: float = 0.0
    count_rcu: float = 0.0
    seconds: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.action not in ("failed", "corrupt", "busy")

    def line(self) -> str:
        figures = f"{self.items} items, {self.bytes} bytes, {self.rcu:.1f} RCU, {self.seconds:.2f}s"
        return f"{self.table}: {self.action} ({figures}){f' — {self.detail}' if self.detail else ''}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


@capacity.access_pattern("time_series.archive")
def archive(
    family: PeriodTables,
    kind: PeriodKind,
    now: datetime | None,
    retention: int,
    store: ArchiveStore,
    *,
    fence: Fence,
    dry_run: bool = False,
    segments: int = 4,
    on_progress: Progress | None = None,
    recheck_archived: bool = True,
) -> list[ArchiveReport]:
    """Archive and drop every events table older than ``retention`` periods — export ≈ 0.5 RCU per 4 KB,
    verification count 1 RCU per 4 KB, DeleteTable free.

    ``retention`` (≥ 1) full periods stay beside the current one: monthly with retention 3 on
    2026-11-22 keeps 2026-08 … 2026-11 and archives 2026-07 and older (of any period kind).
    Tables go oldest first, one at a time (``segments`` threads each). ``fence()`` is called
    right before each DeleteTable; when it raises, the exception ends the run with that table
    still in place (the next owner resumes from its manifest). Archives of tables already gone
    are read back again (``recheck_archived``; False only checks that the manifest exists).
    ``dry_run`` makes no change and no Scan: it says what would happen.
    """
    if not isinstance(retention, int) or retention < 1:
        raise ValueError(f"retention must be an integer ≥ 1 (the previous period must stay), got {retention!r}")
    now = utcnow() if now is None else as_utc(now)
    cutoff = period_shift(kind, now, -retention)
    # The tables still in DynamoDB, and those only left as an archive (a drop already happened).
    candidates = {(t.start, t.name): t.period for t in list_period_tables(family) if t.end <= cutoff}
    for name in store.list(f"{ARCHIVE_ROOT}/{family.prefix}"):
        table, _, file = name.removeprefix(f"{ARCHIVE_ROOT}/").partition("/")
        parsed = family.parse_table_name(table)
        if file == MANIFEST_FILE and parsed and period_shift(parsed[0], parsed[2], 1) <= cutoff:
            candidates.setdefault((parsed[2], table), parsed[1])
    return [
        archive_table(
            table,
            store,
            family=family,
            fence=fence,
            dry_run=dry_run,
            segments=segments,
            on_progress=on_progress,
            recheck_archived=recheck_archived,
            period=period,
        )
        for (_, table), period in sorted(candidates.items())
    ]


@capacity.access_pattern("time_series.archive")
def archive_table(
    table: str,
    store: ArchiveStore,
    *,
    family: PeriodTables | None = None,
    fence: Fence,
    dry_run: bool = False,
    segments: int = 4,
    on_progress: Progress | None = None,
    recheck_archived: bool = True,
    period: str = "",
) -> ArchiveReport:
    """One table through export → manifest → verify → count → fence → DeleteTable, resuming where it stopped."""
    began = time.perf_counter()
    report = ArchiveReport(table, period, "")
    with capacity.measure() as meter:
        _archive_table(report, store, family, fence, dry_run, segments, on_progress, recheck_archived)
    report.rcu, report.wcu = round(meter.rcu, 3), round(meter.wcu, 3)
    report.seconds = round(time.perf_counter() - began, 3)
    return report


def _archive_table(
    report: ArchiveReport,
    store: ArchiveStore,
    family: PeriodTables | None,
    fence: Fence,
    dry_run: bool,
    segments: int,
    on_progress: Progress | None,
    recheck_archived: bool,
) -> None:
    table = report.table
    description = tables.describe_table(table)
    status = description["TableStatus"] if description else "GONE"
    if status in ("GONE", "DELETING"):
        _report_gone(report, store, recheck_archived, on_progress)
        return
    if status == "CREATING":
        report.action, report.detail = "busy", "table is being created"
        return
    assert description is not None
    existing = verify_archive(store, table, on_progress=on_progress) if store.exists(archive_names(table)[1]) else None
    if dry_run:
        if existing is not None and existing.ok:
            report.action, report.items, report.bytes = "would_resume", existing.items, existing.bytes
            report.detail = "archive verified; would count the table, then drop it"
        else:
            report.action, report.items = "would_archive", int(description.get("ItemCount", 0))
            report.bytes = int(description.get("TableSizeBytes", 0))
            report.detail = "would export, verify and drop (items and bytes as DescribeTable reports them)"
            if existing is not None:
                report.detail += f"; the existing archive does not verify: {existing.detail}"
        return
    resumed = existing is not None and existing.ok
    if existing is not None and not existing.ok:
        report.detail = f"existing archive replaced ({existing.detail}); "
    if not resumed:
        with capacity.measure() as export_meter:
            export_table(table, store, family=family, segments=segments, on_progress=on_progress)
        report.export_rcu = round(export_meter.rcu, 3)
        existing = verify_archive(store, table, on_progress=on_progress)
    assert existing is not None
    report.items, report.bytes = existing.items, existing.bytes
    if not existing.ok:
        discard_archive(store, table)  # no manifest claims a good archive, no data file outlives it; next run exports
        report.action, report.detail = "failed", report.detail + f"verification failed, table kept: {existing.detail}"
        return
    if on_progress is not None:
        on_progress(0, existing.items, "count")
    with capacity.measure() as count_meter:
        in_table = count_items(table, consistent=True, segments=segments)
    report.count_rcu = round(count_meter.rcu, 3)
    if on_progress is not None:
        on_progress(in_table, existing.items, "count")
    if in_table != existing.items:
        report.action = "failed"
        report.detail += (
            f"the table holds {in_table} items, the archive {existing.items}: table kept, next run exports again"
        )
        discard_archive(store, table)  # the data file too: its items (a team offboarded meanwhile?) stay nowhere
        return
    fence()  # raises when this run no longer owns the job: nothing is dropped
    refused = tables.drop_table(table)
    if refused:
        report.action, report.detail = (
            "busy",
            report.detail + f"archived and verified; {refused}; the next run drops it",
        )
        return
    report.action = "resumed" if resumed else "archived"
    report.detail += "archive verified against the manifest and the table's count; table dropped"


def discard_archive(store: ArchiveStore, table: str) -> None:
    """Delete a table's archive that must not stand (the table is kept): the manifest first, then every data file
    in its folder. Killed in between, a data file without a manifest is left: the next export writes over it, and
    offboarding's ``archives`` stage deletes it (``ddbmodels.tenants.archives``); no restore reads it."""
    folder = f"{ARCHIVE_ROOT}/{table}/"
    store.delete(archive_names(table)[1])
    for name in store.list(folder):
        rest = name[len(folder) :]
        if "/" not in rest and rest.startswith("data"):
            store.delete(name)


def _report_gone(report: ArchiveReport, store: ArchiveStore, recheck: bool, on_progress: Progress | None) -> None:
    if recheck:
        verification = verify_archive(store, report.table, on_progress=on_progress)
        report.items, report.bytes = verification.items, verification.bytes
        if verification.ok:
            report.action, report.detail = "already_archived", "table gone; archive verified"
        else:
            report.action = "corrupt"
            report.detail = f"the table is gone and its archive does not verify: {verification.detail}"
        return
    data_file = ""
    try:
        manifest = read_manifest(store, report.table)
        data_file = data_name(report.table, manifest) if manifest is not None else ""
    except (ArchiveInvalid, ValueError):
        manifest = None
    if manifest is None or not store.exists(data_file):
        report.action, report.detail = "corrupt", "the table is gone and its archive is incomplete"
        return
    report.items, report.bytes = int(manifest.get("item_count", 0)), int((manifest.get("data") or {}).get("bytes", 0))
    report.action, report.detail = "already_archived", "table gone; manifest present (not re-read)"
