"""Archiving a time-series table: export speed and RCU, and dropping a table versus deleting its items.

An events table of an old month (2020-01) is filled with ``--items`` events of about
``--item-bytes`` bytes, then:

1. exported once per ``--segments`` level (parallel Scan, gzip JSON Lines, each into its own
   store, the table left in place): items/s and the RCU of the scan against the floor,
   table size / 4 KB × 0.5 (an eventually consistent read of 4 KB costs 0.5 RCU);
2. archived for real (``patterns.events.archive``: export, manifest, read-back
   verification, consistent COUNT Scan, DeleteTable) — DeleteTable consumes no capacity;
3. restored from the archive into a copy (BatchWriteItem), and ``--delete-sample`` items of the
   copy deleted one by one (BatchWriteItem DeleteRequests): the measured WCU per item,
   extrapolated to the whole table, is what removing the month item by item would have cost.
   Then the copy is dropped with DeleteTable, measured too.

Printed on stdout: a table, then exactly one line of JSON. Exit status: 0 when every check
held (all items archived, verified, restored), 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/archive.py
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/archive.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from ddbmodels import events  # noqa: E402
from ddbmodels.core import capacity, connection  # noqa: E402
from ddbmodels.core.storage import LocalDirStore  # noqa: E402
from ddbmodels.core.tables import describe_table  # noqa: E402
from ddbmodels.core.threads import map_in_threads  # noqa: E402
from ddbmodels.patterns import time_series  # noqa: E402
from devtools import bench  # noqa: E402

KIND: time_series.PeriodKind = "month"
MONTH = datetime(2020, 1, 1, tzinfo=UTC)
NOW = datetime(2020, 3, 15, tzinfo=UTC)  # with retention 1, 2020-01 is past retention
SHARDS = 4
FILL_THREADS = 8
RCU_PER_4KB_EVENTUAL = 0.5


class CheckFailed(Exception):
    """A figure the benchmark verifies did not hold."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/archive.py", description="Export, archive and drop a time-series table; what deleting would cost."
    )
    parser.add_argument("--items", type=bench.positive_int, default=20_000, help="events in the table (default: 20000)")
    parser.add_argument(
        "--item-bytes", type=bench.positive_int, default=300, help="approximate size of an event item (default: 300)"
    )
    parser.add_argument(
        "--segments",
        type=bench.int_list("segment counts"),
        default=[1, 4],
        metavar="N,N,...",
        help="parallel scan levels (default: 1,4)",
    )
    parser.add_argument(
        "--delete-sample",
        type=bench.positive_int,
        default=2_000,
        help="items deleted one by one from the restored copy, extrapolated to the table (default: 2000)",
    )
    bench.add_allow_aws(parser)
    return parser.parse_args(argv)


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
    raise CheckFailed(f"BatchWriteItem left items unprocessed in {table}")


def in_batches(requests: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [requests[i : i + 25] for i in range(0, len(requests), 25)]


def fill(table: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    batches = in_batches([{"PutRequest": {"Item": item}} for item in items])
    began = time.perf_counter()
    with capacity.measure() as meter:
        map_in_threads(lambda batch: batch_write(table, batch), batches, workers=FILL_THREADS)
    seconds = time.perf_counter() - began
    return {
        "items": len(items),
        "seconds": round(seconds, 3),
        "items_per_s": round(len(items) / seconds, 1),
        "wcu": round(meter.wcu, 3),
        "wcu_per_item": round(meter.wcu / len(items), 4),
    }


def export_level(table: str, segments: int, workdir: Path, size_bytes: int) -> dict[str, Any]:
    store = LocalDirStore(workdir / f"export-{segments}")
    began = time.perf_counter()
    with capacity.measure() as meter:
        manifest = time_series.export_table(table, store, segments=segments)
    seconds = time.perf_counter() - began
    items = int(manifest["item_count"])
    floor = size_bytes / 4096 * RCU_PER_4KB_EVENTUAL
    return {
        "stage": f"export, {segments} segment{'s' if segments > 1 else ''}",
        "segments": segments,
        "items": items,
        "seconds": round(seconds, 3),
        "items_per_s": round(items / seconds, 1),
        "rcu": round(meter.rcu, 3),
        "rcu_floor": round(floor, 3),
        "rcu_over_floor": round(meter.rcu / floor, 4) if floor else None,
        "requests": meter.requests,
        "archive_bytes": manifest["data"]["bytes"],
        "json_bytes": manifest["data"]["uncompressed_bytes"],
    }


def delete_sample(table: str, sample: int) -> dict[str, Any]:
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
    return {
        "items": len(keys),
        "seconds": round(time.perf_counter() - began, 3),
        "wcu": round(meter.wcu, 3),
        "wcu_per_item": round(meter.wcu / len(keys), 4) if keys else None,
    }


def drop(table: str) -> dict[str, Any]:
    with capacity.measure() as meter:
        connection.client().delete_table(TableName=table)
    return {"wcu": meter.wcu, "rcu": meter.rcu, "requests": meter.requests}


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    table = events.events_table_name(KIND, MONTH)
    events.create_events_table(table)
    items = build_items(args.items, args.item_bytes)
    sizes = [bench.item_size(item) for item in items]
    filled = fill(table, items)
    description = describe_table(table) or {}
    size_bytes = int(description.get("TableSizeBytes") or sum(sizes))
    if int(description.get("ItemCount", args.items)) != args.items:
        raise CheckFailed(f"the table holds {description.get('ItemCount')} items, expected {args.items}")

    exports = [export_level(table, segments, workdir, size_bytes) for segments in args.segments]

    store = LocalDirStore(workdir / "archive")
    fence_calls = []
    (report,) = events.archive(KIND, NOW, 1, store, fence=lambda: fence_calls.append(1), segments=max(args.segments))
    if report.action != "archived" or report.items != args.items or describe_table(table) is not None:
        raise CheckFailed(f"archive: {report.line()}")

    copy = f"{table}-copy"  # not an events-table name: archive() never touches it
    restored = time_series.restore(store, table, table_name=copy, workers=FILL_THREADS)
    sample = delete_sample(copy, min(args.delete_sample, args.items))
    dropped = drop(copy)
    per_item = sample["wcu_per_item"] or 0.0
    extrapolated = per_item * args.items
    return {
        "table": table,
        "items": args.items,
        "item_bytes": {"mean": round(sum(sizes) / len(sizes), 1), "min": min(sizes), "max": max(sizes)},
        "table_size_bytes": size_bytes,
        "fill": filled,
        "exports": exports,
        "archive": {**report.as_dict(), "fence_calls": len(fence_calls)},
        "restore": {**restored.as_dict(), "items_per_s": round(restored.items / restored.seconds, 1)},
        "delete_items": {
            **sample,
            "method": "measured on a sample of the restored copy, extrapolated"
            if sample["items"] < args.items
            else "measured on every item of the restored copy",
            "extrapolated_wcu_for_table": round(extrapolated, 1),
            "theoretical_wcu_per_item": 2 * math.ceil(max(sizes) / 1024),  # the table and the by_day index
        },
        "drop_table": dropped,
    }


def print_table(result: dict[str, Any]) -> None:
    rows = [("stage", "items", "seconds", "items/s", "RCU", "RCU floor", "WCU")]
    fill = result["fill"]
    rows.append(("fill (BatchWriteItem)", fill["items"], fill["seconds"], fill["items_per_s"], "", "", fill["wcu"]))
    for level in result["exports"]:
        rows.append(
            (
                level["stage"],
                level["items"],
                level["seconds"],
                level["items_per_s"],
                level["rcu"],
                level["rcu_floor"],
                "",
            )
        )
    archived = result["archive"]
    rows.append(
        (
            "archive (export+verify+count+drop)",
            archived["items"],
            archived["seconds"],
            round(archived["items"] / archived["seconds"], 1),
            archived["rcu"],
            "",
            archived["wcu"],
        )
    )
    restored = result["restore"]
    rows.append(
        (
            "restore into a copy",
            restored["items"],
            restored["seconds"],
            restored["items_per_s"],
            "",
            "",
            restored["wcu"],
        )
    )
    deleted = result["delete_items"]
    rows.append(("delete items (sample)", deleted["items"], deleted["seconds"], "", "", "", deleted["wcu"]))
    rows.append(
        ("DeleteTable (the copy)", result["items"] - deleted["items"], "", "", "", "", result["drop_table"]["wcu"])
    )
    header, *lines = [[str(c) for c in row] for row in rows]
    print(bench.align(header, lines, left=1))
    print(
        f"dropping the month: {result['drop_table']['wcu']} WCU; deleting its {result['items']} items one by one: "
        f"≈ {deleted['extrapolated_wcu_for_table']} WCU ({deleted['wcu_per_item']} WCU/item, {deleted['method']})"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/archive.py", allow_aws=args.allow_aws)
    if target is None:
        return 2
    prefix = target.prefix
    print(
        f"archive: {target.endpoint}, tables {prefix}*, {args.items} items of ~{args.item_bytes} B, "
        f"segments {args.segments}"
    )

    result: dict[str, Any] = {}
    error: str | None = None
    with tempfile.TemporaryDirectory(prefix="bench-archive-") as workdir:
        try:
            result = run(args, Path(workdir))
        except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
            error = bench.failure_text(failure, expected=(CheckFailed,))
        finally:
            client = connection.client()
            leftovers = [n for n in client.list_tables(Limit=100)["TableNames"] if n.startswith(prefix)]
            for name in leftovers:
                try:
                    client.delete_table(TableName=name)
                except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
                    print(f"warning: could not delete {name}: {failure}", file=sys.stderr)
            if leftovers:
                print(f"deleted {len(leftovers)} leftover table(s): {', '.join(leftovers)}", file=sys.stderr)

    if result:
        print_table(result)
    figures = {
        "items": args.items,
        "item_bytes_target": args.item_bytes,
        "segments": args.segments,
        "rcu_per_4kb": RCU_PER_4KB_EVENTUAL,
        **result,
    }
    return bench.finish("archive", target, error, figures, default=str)


if __name__ == "__main__":
    sys.exit(main())
