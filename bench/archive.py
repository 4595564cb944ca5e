"""Archiving a time-series table: export speed and RCU, and dropping a table versus deleting its items.

An events table of an old month (2020-01) is filled with ``--items`` events of about
``--item-bytes`` bytes, then:

1. exported once per ``--segments`` level (parallel Scan, gzip JSON Lines, each into its own
   store, the table left in place): items/s and the RCU of the scan against the floor,
   table size / 4 KB × 0.5 (an eventually consistent read of 4 KB costs 0.5 RCU);
2. archived for real (``patterns.events.archive``: export, manifest, read-back
   verification, consistent COUNT Scan, DeleteTable) — DeleteTable consumes no capacity;
3. restored from the archive into a copy (BatchWriteItem, then a consistent COUNT Scan of the
   copy), and ``--delete-sample`` items of the copy deleted one by one (BatchWriteItem
   DeleteRequests): the measured WCU per item, extrapolated to the whole table, is what removing
   the month item by item would have cost. Then the copy is dropped with DeleteTable, measured too.

DynamoDB's floors, from the items written (DynamoDB's size rules): the fill, the restore and each
deleted item 1 WCU per started KB for the item and as much for its ``by_day`` entry (projection
ALL); an export 0.5 RCU per started 4 KB of the table, the archive's and the restore's consistent
COUNT Scans 1 RCU per 4 KB; DeleteTable nothing. Each Scan page (≤ 1 MB, one per segment at least) is rounded up to
4 KB on its own: up to one more read unit per page after the first, the stated tolerance, with
the pages counted from what was asked, not seen: one per segment plus one per started MB of the
table (its larger size, DynamoDB's or Local's, read back unmetered). The archive is measured whole
by the bench's own meter (export + verify + consistent COUNT + DeleteTable: the two Scans' floors
and their pages), and the archive's own report must tell the same RCU. Where DynamoDB Local sizes
the table otherwise (its TableSizeBytes), both floors are printed and the ratio uses Local's.

Printed on stdout: a table, the notes on the floors, then exactly one line of JSON. Exit status:
0 when every check held (all items archived, verified, restored) and every figure is its floor or
explained, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/archive.py
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels import events
from ddbmodels.core import capacity, connection
from ddbmodels.core.storage import LocalDirStore
from ddbmodels.core.tables import describe_table
from ddbmodels.core.threads import map_in_threads
from ddbmodels.patterns import time_series
from devtools import bench

KIND: time_series.PeriodKind = "month"
MONTH = datetime(2020, 1, 1, tzinfo=UTC)
NOW = datetime(2020, 3, 15, tzinfo=UTC)  # with retention 1, 2020-01 is past retention
SHARDS = 4
FILL_THREADS = 8
PAGE_BYTES = 1 << 20
# Besides the Scans, the control-plane calls each stage makes (least, most; no capacity): nothing else may be read.
EXPORT_OTHERS = {"DescribeTable": (1, 1)}  # the export reads the table's key schema
ARCHIVE_OTHERS = {"ListTables": (1, 1), "DescribeTable": (2, 2), "DeleteTable": (1, 1)}  # past retention?; the drop
RESTORE_OTHERS = {"DescribeTable": (2, 60), "CreateTable": (1, 1)}  # "not there yet", then polled until ACTIVE
PAGES = "each Scan page is rounded up to 4 KB on its own (up to one read unit per page after the first)"


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("archive", __doc__)
    bench.count(parser, "--items", 20_000, "events in the table")
    bench.count(parser, "--item-bytes", 300, "approximate size of an event item")
    bench.levels(parser, "--segments", [1, 4], "parallel scan levels")
    bench.count(parser, "--delete-sample", 2_000, "items deleted one by one from the restored copy, extrapolated")
    args = parser.parse_args(argv)
    # --quick: a table of ~0.6 MB (one Scan page a segment), in a few seconds
    return bench.quick_sizes(parser, args, items=2_000, delete_sample=200)


def build_items(count: int, item_bytes: int) -> list[dict[str, Any]]:
    """``count`` events spread over January 2020, padded to about ``item_bytes`` each."""
    step = timedelta(days=31) / count
    items = []
    for i in range(count):
        item = events.event_item(
            stream=f"bench#LOAD#{i % 997}",
            kind="issue.edited",
            actor=f"user-{i % 50}",
            tenant="bench",
            data={"i": i, "pad": ""},
            when=MONTH + step * i,
            shards=SHARDS,
        )
        item["data"]["M"]["pad"]["S"] = "x" * max(0, item_bytes - bench.item_size(item))
        items.append(item)
    return items


def batch_write(table: str, requests: list[dict[str, Any]]) -> None:
    client = connection.client()
    pending: dict[str, Any] = {table: requests}
    for attempt in range(12):
        pending = client.batch_write_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL").get("UnprocessedItems")
        if not pending:
            return
        time.sleep(min(2.0, 0.05 * 2**attempt))
    raise bench.CheckFailed(f"BatchWriteItem left items unprocessed in {table}")


def key_of(item: dict[str, Any]) -> tuple[str, str]:
    """An event's table key (``s``, ``t``), from the item or its key alone."""
    return str(item["s"]), str(item["t"])


def in_batches(requests: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [requests[i : i + 25] for i in range(0, len(requests), 25)]


class Sizes:
    """The table's size by DynamoDB's rules (the items written) and by DynamoDB Local's (TableSizeBytes)."""

    def __init__(self, items: list[dict[str, Any]], local: int) -> None:
        self.each = [bench.item_size(item) for item in items]
        self.by_key = {key_of(item): size for item, size in zip(items, self.each, strict=True)}
        self.table, self.local = sum(self.each), local
        self.write = sum(2 * bench.write_units(size) for size in self.each)  # the item and its by_day entry

    def pages(self, segments: int) -> int:
        """The most pages a Scan of the table in ``segments`` can take: one per segment, one per started MB more."""
        return segments + max(self.table, self.local) // PAGE_BYTES

    def scan_floor(self, segments: int, *, consistent: bool = False) -> tuple[bench.Cost, bench.Cost, bench.Difference]:
        """A whole-table Scan: DynamoDB's floor, Local's difference, and its pages' rounding (from ``segments``).

        The floor's requests: one page per segment; the pages' difference: up to ``pages(segments)`` in all, each
        after the first up to 0.5 RCU more (1 consistent), so 0 … that much more, judged as half ± half.
        """
        floor = bench.read_units(self.table, consistent=consistent)
        local = bench.read_units(self.local, consistent=consistent)
        more = self.pages(segments) - segments  # pages beyond one a segment, at most
        half = bench.Cost((1.0 if consistent else 0.5) / 2 * (self.pages(segments) - 1), 0, more / 2)
        return (
            bench.Cost(floor, 0, segments),
            bench.Cost(local - floor, 0, 0),
            bench.Difference(f"{PAGES}; up to {more} more page(s)", half, half),
        )

    def local_why(self) -> str:
        return f"DynamoDB Local sizes the table by its own rules (TableSizeBytes {self.local:,} B)"

    def scan(self, run: bench.Run, name: str, meter: Any, segments: int, others: Mapping[str, tuple[int, int]]) -> Any:
        """Judge an eventually consistent Scan of the whole table in ``segments``."""
        floor, local, pages = self.scan_floor(segments)
        return run.judge(
            name,
            scanned(meter, others),
            floor,
            local=bench.Difference(self.local_why(), local) if local.rcu else None,
            extras=[pages],
        )


def scanned(meter: Any, expected: Mapping[str, tuple[int, int]] | None = None) -> bench.Cost:
    """The meter's RCU, WCU and Scan requests; any other operation outside its ``expected`` counts fails the run."""
    wrong = bench.unexpected_operations(meter.by_operation, ["Scan"], expected or {})
    bench.check(not wrong, f"requests other than the Scans: {', '.join(wrong)}")
    return bench.Cost(meter.rcu, meter.wcu, meter.by_operation.get("Scan", 0))


def fill(run: bench.Run, name: str, table: str, items: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    """BatchWriteItem on threads, judged against ``floor`` WCU."""
    began = time.perf_counter()
    with capacity.measure() as meter:
        requests = in_batches([{"PutRequest": {"Item": item}} for item in items])
        map_in_threads(lambda batch: batch_write(table, batch), requests, workers=FILL_THREADS)
    seconds = time.perf_counter() - began
    verdict = run.judge(name, bench.Cost(meter.rcu, meter.wcu), bench.Cost(0, floor))
    run.figures.setdefault("fill_requests", []).append({"stage": name, "batches": len(requests), **meter.as_dict()})
    return {"stage": name, "items": len(items), "seconds": round(seconds, 3), **verdict.cells()}


def export_level(run: bench.Run, table: str, segments: int, workdir: Path, sizes: Sizes) -> dict[str, Any]:
    store = LocalDirStore(workdir / f"export-{segments}")
    began = time.perf_counter()
    with capacity.measure() as meter:
        manifest = time_series.export_table(table, store, segments=segments)
    seconds = time.perf_counter() - began
    name = f"export, {segments} segment{'s' if segments > 1 else ''}"
    verdict = sizes.scan(run, name, meter, segments, EXPORT_OTHERS)
    return {
        "stage": name,
        "items": int(manifest["item_count"]),
        "seconds": round(seconds, 3),
        "archive_bytes": manifest["data"]["bytes"],
        "json_bytes": manifest["data"]["uncompressed_bytes"],
        **verdict.cells(),
    }


def delete_sample(run: bench.Run, table: str, sample: int, sizes: Sizes) -> dict[str, Any]:
    """BatchWriteItem DeleteRequests for the first ``sample`` items (keys from a keys-only Scan, not metered)."""
    client = connection.client()
    keys: list[dict[str, Any]] = []
    request: dict[str, Any] = {"TableName": table, "ProjectionExpression": "s, t"}
    while len(keys) < sample:
        page = client.scan(**request, Limit=min(1000, sample - len(keys)))
        keys.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    began = time.perf_counter()
    with capacity.measure() as meter:
        batches = in_batches([{"DeleteRequest": {"Key": key}} for key in keys])
        map_in_threads(lambda batch: batch_write(table, batch), batches, workers=FILL_THREADS)
    floor = sum(2 * bench.write_units(sizes.by_key[key_of(key)]) for key in keys)  # the item and its by_day entry
    verdict = run.judge("delete items (sample)", bench.Cost(meter.rcu, meter.wcu), bench.Cost(0, floor))
    return {
        "stage": "delete items (sample)",
        "items": len(keys),
        "seconds": round(time.perf_counter() - began, 3),
        **verdict.cells(),
    }


def measure(run: bench.Run) -> None:
    args, workdir = run.args, Path(run.args.workdir)
    table = events.events_table_name(KIND, MONTH)
    events.create_events_table(table)
    items = build_items(args.items, args.item_bytes)
    stages = run.figures.setdefault("stages", [])
    stages.append(fill(run, "fill (BatchWriteItem)", table, items, Sizes(items, 0).write))
    description = describe_table(table) or {}
    sizes = Sizes(items, int(description.get("TableSizeBytes") or 0))
    bench.check(
        int(description.get("ItemCount", 0)) == args.items, f"the table holds {description.get('ItemCount')} items"
    )
    run.figures.update(
        table=table,
        item_bytes={"mean": round(sizes.table / len(items), 1), "min": min(sizes.each), "max": max(sizes.each)},
        table_size_bytes=sizes.table,
        local_table_size_bytes=sizes.local,
    )
    stages.extend(export_level(run, table, segments, workdir, sizes) for segments in args.segments)

    store = LocalDirStore(workdir / "archive")
    fence_calls: list[int] = []
    segments = max(args.segments)
    with capacity.measure() as meter:  # the bench's own meter, not the archive's report
        (report,) = events.archive(KIND, NOW, 1, store, fence=lambda: fence_calls.append(1), segments=segments)
    bench.check(report.action == "archived" and report.items == args.items, f"archive: {report.line()}")
    bench.check(describe_table(table) is None, "the archived table is still there")
    bench.check(
        abs(report.rcu - meter.rcu) < 1e-6 and abs(report.export_rcu + report.count_rcu - report.rcu) < 1e-6,
        f"the archive reported {report.rcu} RCU (export {report.export_rcu} + count {report.count_rcu}), "
        f"the bench measured {meter.rcu}",
    )
    export, export_local, export_pages = sizes.scan_floor(segments)
    count, count_local, count_pages = sizes.scan_floor(segments, consistent=True)
    local = export_local + count_local
    archived = run.judge(
        "archive (export+verify+count+drop)",
        scanned(meter, ARCHIVE_OTHERS),
        export + count,
        local=bench.Difference(f"{sizes.local_why()}, both Scans", local) if local.rcu else None,
        extras=[
            bench.Difference(
                f"the export's and the consistent COUNT's pages ({sizes.pages(segments)} each at most): {PAGES}",
                export_pages.cost + count_pages.cost,
                export_pages.tolerance + count_pages.tolerance,
            )
        ],
    )
    stages.append(
        {
            "stage": "archive (export+verify+count+drop)",
            "items": report.items,
            "seconds": round(report.seconds, 3),
            **archived.cells(),
        }
    )
    run.figures["archive"] = {**report.as_dict(), "fence_calls": len(fence_calls)}

    copy = f"{table}-copy"  # not an events-table name: archive() never touches it
    with capacity.measure() as meter:
        restored = time_series.restore(store, table, table_name=copy, workers=FILL_THREADS)
    bench.check(restored.items == args.items, f"restored {restored.items} of {args.items} items")
    count, count_local, count_pages = sizes.scan_floor(1, consistent=True)  # its closing COUNT, one segment
    batches = math.ceil(args.items / 25)  # BatchWriteItem of 25 items at most (Local processes every one)
    verdict = run.judge(
        "restore into a copy",
        scanned(meter, {**RESTORE_OTHERS, "BatchWriteItem": (batches, batches)}),
        bench.Cost(count.rcu, sizes.write, count.requests),
        local=bench.Difference(f"{sizes.local_why()}, its COUNT", count_local) if count_local.rcu else None,
        extras=[count_pages],
    )
    stages.append(
        {
            "stage": "restore into a copy",
            "items": restored.items,
            "seconds": round(restored.seconds, 3),
            **verdict.cells(),
        }
    )
    sample = delete_sample(run, copy, min(args.delete_sample, args.items), sizes)
    stages.append(sample)
    with capacity.measure() as meter:
        connection.client().delete_table(TableName=copy)
    verdict = run.judge("DeleteTable (the copy)", bench.Cost.of(meter), bench.Cost(0, 0, 1))
    stages.append(
        {"stage": "DeleteTable (the copy)", "items": args.items - sample["items"], "seconds": "", **verdict.cells()}
    )
    per_item = sample["m_wcu"] / sample["items"] if sample["items"] else 0.0
    run.figures["delete_items"] = {
        "method": "measured on a sample of the restored copy, extrapolated"
        if sample["items"] < args.items
        else "measured on every item of the restored copy",
        "wcu_per_item": round(per_item, 4),
        "extrapolated_wcu_for_table": round(per_item * args.items, 1),
    }


COLUMNS = bench.columns("stage:s | items:d | seconds: | @floors")


def show(run: bench.Run) -> None:
    figures = run.figures
    bench.show_table(None, COLUMNS, figures.get("stages"))
    if "delete_items" in figures:
        deleted = figures["delete_items"]
        print(
            f"table: {figures['table_size_bytes']:,} bytes by DynamoDB's item sizes, "
            f"{figures['local_table_size_bytes']:,} by DynamoDB Local's TableSizeBytes\n"
            f"dropping the month: 0 WCU; deleting its {run.args.items} items one by one: "
            f"≈ {deleted['extrapolated_wcu_for_table']} WCU ({deleted['wcu_per_item']} WCU/item, {deleted['method']})"
        )


def main(argv: list[str] | None = None) -> int:
    args, headline = parse_args(argv), ", {items} items of ~{item_bytes} B, segments {segments}"
    with tempfile.TemporaryDirectory(prefix="bench-archive-") as args.workdir:
        return bench.run("archive", args, measure, show, headline=headline, default=str)


if __name__ == "__main__":
    sys.exit(main())
