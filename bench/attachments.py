"""Attachments on a sparse index: what each state transition writes, and what finding the
attachments in flight reads — the sparse ``in_flight`` index against a scan of the whole table.

1. **transitions**: ``--lifecycles`` attachments go Attaching → Attached → Detaching → Detached,
   a quarter more are claimed and rolled back (Attaching → Failed), and as many refused
   transitions are tried (detaching a Detached one). Each step's WCU is DynamoDB's own
   ConsumedCapacity, compared with theory: 1 WCU per started KB for the item, plus the same
   for every index entry put or deleted (a key change is both).
2. **finding the stuck ones**: a table of ``--attachments`` items (default 5,000) of which
   ``--in-flight`` percent (default 1 %) are Attaching or Detaching since an hour ago. Then
   Query of the sparse index (4 shards × 2 states = 8 Queries) against a Scan of the table
   filtered on the state; both must find exactly the items written in flight.
3. **repair**: ``attachment_flow.reconcile`` on those stuck items (no files: every Attaching is
   rolled back, every Detaching finished), its RCU and WCU per item.

Printed on stdout: two tables and, last, exactly one line of JSON. Exit 0 when both reads found
exactly the in-flight items, 1 otherwise, 2 when refused (no DYNAMODB_ENDPOINT_URL).

    python -m devtools.services run -- .venv/bin/python bench/attachments.py
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/attachments.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from ddbmodels import attachments as ops  # noqa: E402
from ddbmodels.attachments import (  # noqa: E402
    ATTACHED,
    ATTACHING,
    DETACHING,
    IN_FLIGHT,
    INTERMEDIATE,
    AttachmentItem,
    LocalBlobStore,
    issue_key,
    new_attachment_id,
    reconcile,
    storage_name,
)
from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.core.errors import ChangedSinceRead  # noqa: E402
from ddbmodels.core.keys import utcnow  # noqa: E402
from devtools import bench  # noqa: E402

TENANT = "bench"
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


class VerificationError(Exception):
    """A read did not find exactly the attachments written in flight."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/attachments.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--lifecycles",
        type=bench.positive_int,
        default=200,
        help="attachments driven through every state (default: 200)",
    )
    parser.add_argument(
        "--attachments",
        type=bench.positive_int,
        default=5000,
        help="items in the table for the read comparison (default: 5000)",
    )
    parser.add_argument(
        "--in-flight", type=float, default=1.0, metavar="PERCENT", help="percent of them in flight (default: 1)"
    )
    bench.add_allow_aws(parser)
    return parser.parse_args(argv)


def begin(number: int) -> AttachmentItem:
    return ops.attachment_begin(
        tenant=TENANT,
        project_key="WEB",
        number=number,
        filename=f"report-{number}.pdf",
        size=48_213,
        sha256=SHA,
        content_type="application/pdf",
        by="bench",
    )


def item_bytes(item: AttachmentItem | None) -> int:
    """DynamoDB's size of an item: attribute names plus values (strings UTF-8, numbers ≈ digits / 2 + 1)."""
    assert item is not None
    total = 0
    for name, value in item.serialize().items():
        ((kind, raw),) = value.items()
        total += len(name.encode()) + (len(raw.encode()) if kind == "S" else (len(raw.lstrip("-")) + 1) // 2 + 1)
    return total


def kb_units(size: int) -> int:
    return max(1, math.ceil(size / 1024))


def measure_step(name: str, inputs: list[Any], step: Any, theory: float) -> tuple[dict[str, Any], list[Any]]:
    """Run ``step`` on every input under one meter: the row (WCU per operation against ``theory``), the results."""
    results = []
    with capacity.measure() as meter:
        began = time.perf_counter()
        for value in inputs:
            with contextlib.suppress(ChangedSinceRead):  # the refused row expects it (a conditional failure)
                results.append(step(value))
        seconds = time.perf_counter() - began
    n = len(inputs)
    row = {
        "step": name,
        "operations": n,
        "wcu": round(meter.wcu, 2),
        "wcu_per_op": round(meter.wcu / n, 3),
        "theory_wcu": theory,
        "rcu_per_op": round(meter.rcu / n, 3),
        "failed_writes": meter.conditional_failures,
        "requests_per_op": round(meter.requests / n, 3),
        "ms_per_op": round(1000 * seconds / n, 2),
    }
    return row, results


def transitions(lifecycles: int) -> tuple[list[dict[str, Any]], int]:
    """Every transition's WCU on fresh attachments, and the item size in bytes."""
    first = begin(0)
    size = item_bytes(ops.attachment_get_by_key(first.pk, first.attachment_id, consistent=True))
    u = kb_units(size)  # an entry of a projection-ALL index is as large as the item
    quarter = max(1, lifecycles // 4)
    row, items = measure_step("begin: PutItem Attaching + keys", list(range(1, lifecycles + 1)), begin, 2 * u)
    rows = [row]
    row, rollbacks = measure_step(
        "begin (to roll back)", list(range(lifecycles + 1, lifecycles + quarter + 1)), begin, 2 * u
    )
    steps: list[tuple[str, list[Any], Any, int]] = [
        ("complete: → Attached, REMOVE keys", items, ops.attachment_complete, 2 * u),
        ("detach: → Detaching, SET keys", items, lambda i: ops.attachment_detach_begin(i, by="b"), 2 * u),
        ("detached: → Detached, REMOVE keys", items, ops.attachment_detach_complete, 2 * u),
        ("claim: re-stamp Attaching, key moves", rollbacks, lambda i: ops.attachment_claim(i, reason="b"), 3 * u),
        ("fail: → Failed, REMOVE keys", rollbacks, lambda i: ops.attachment_fail(i, reason="b"), 2 * u),
        ("refused: detach a Detached one", items[:quarter], lambda i: ops.attachment_detach_begin(i, by="b"), 0),
    ]
    rows.extend(measure_step(*step)[0] for step in steps)
    return rows, size


def fill(total: int, in_flight: int) -> set[tuple[str, str]]:
    """``total`` attachments, ``in_flight`` of them Attaching/Detaching since an hour ago (BatchWriteItem)."""
    hour_ago, now = utcnow() - timedelta(hours=1), utcnow()
    flying: set[tuple[str, str]] = set()
    bar = bench.progress_bar(total=total, desc="fill", unit="item", leave=False)
    with bar, AttachmentItem.batch_write() as batch:
        for n in range(total):
            number = 1000 + n // 5  # five attachments per issue
            attachment_id = new_attachment_id()
            state = ATTACHED
            if n * in_flight % total < in_flight:  # spread evenly; alternately Attaching and Detaching
                state = ATTACHING if len(flying) % 2 == 0 else DETACHING
            item = AttachmentItem(
                pk=issue_key(TENANT, "WEB", number),
                attachment_id=attachment_id,
                state=state,
                filename=f"scan-{n}.png",
                size=120_000,
                sha256=SHA,
                content_type="image/png",
                attached_by="bench",
                storage_name=storage_name(TENANT, "WEB", number, attachment_id, f"scan-{n}.png"),
                created_at=now,
                updated_at=now,
            )
            if state in INTERMEDIATE:
                item.in_flight_key = IN_FLIGHT.partition_value(state, item)
                item.in_flight_since = hour_ago
                flying.add((item.pk, attachment_id))
            batch.save(item)
            bar.update(1)
    return flying


def reads(expected: set[tuple[str, str]], figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The sparse index Query against a filtered Scan; both must return exactly ``expected``."""
    described = tables.describe(AttachmentItem)
    index = next(i for i in described.get("GlobalSecondaryIndexes", []) if i["IndexName"] == "in_flight")
    table_bytes, index_bytes = int(described.get("TableSizeBytes", 0)), int(index.get("IndexSizeBytes", 0))
    rows = []
    with capacity.measure() as meter:
        began = time.perf_counter()
        items = list(ops.attachments_in_flight(before=utcnow()))
        seconds = time.perf_counter() - began
    found = {(i.pk, i.attachment_id) for i in items}
    by_partition: dict[str, int] = {}
    for item in items:
        by_partition[str(item.in_flight_key)] = by_partition.get(str(item.in_flight_key), 0) + item_bytes(item)
    # Each Query reads its partition's entries, rounded up to 4 KB, 0.5 RCU per unit (DynamoDB
    # Local charges an empty Query nothing; AWS may charge it the 0.5 minimum: ≤ +4 RCU here).
    floor = sum(math.ceil(size / 4096) * 0.5 for size in by_partition.values())
    figures["index_partitions_used"] = len(by_partition)
    rows.append(_read_row("Query in_flight (8 partitions)", found, meter, seconds, floor, index_bytes))
    client = connection.client()
    with capacity.measure() as meter:
        began = time.perf_counter()
        scanned: set[tuple[str, str]] = set()
        kwargs: dict[str, Any] = {
            "TableName": AttachmentItem.Meta.table_name,
            "ReturnConsumedCapacity": "TOTAL",
            "FilterExpression": "st IN (:a, :d)",
            "ExpressionAttributeValues": {":a": {"S": ATTACHING}, ":d": {"S": DETACHING}},
        }
        while True:
            page = client.scan(**kwargs)
            scanned |= {(i["pk"]["S"], i["id"]["S"]) for i in page.get("Items", [])}
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        seconds = time.perf_counter() - began
    rows.append(_read_row("Scan table, filter state", scanned, meter, seconds, table_bytes / 4096 * 0.5, table_bytes))
    for row, got in ((rows[0], found), (rows[1], scanned)):
        if got != expected:
            raise VerificationError(
                f"{row['read']}: {len(got)} found, {len(expected)} in flight, {len(got ^ expected)} differ"
            )
    return rows


def _read_row(
    name: str, found: set, meter: capacity.CapacityMeter, seconds: float, floor: float, size: int
) -> dict[str, Any]:
    return {
        "read": name,
        "found": len(found),
        "rcu": round(meter.rcu, 2),
        "theory_rcu": round(floor, 2),
        "requests": meter.requests,
        "bytes": size,
        "ms": round(1000 * seconds, 1),
    }


def repair(expected: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, capacity.measure() as meter:
        report = reconcile(LocalBlobStore(folder), before=utcnow())
    if report.examined != expected:
        raise VerificationError(f"reconcile examined {report.examined}, expected {expected}")
    return {
        "report": report.as_dict(),
        "rcu": round(meter.rcu, 2),
        "wcu": round(meter.wcu, 2),
        "wcu_per_item": round(meter.wcu / max(1, report.examined), 3),
        "requests": meter.requests,
    }


TRANSITION_COLUMNS: list[bench.Column] = [
    ("transition", "step", "s"),
    ("ops", "operations", "d"),
    ("WCU", "wcu", ".1f"),
    ("WCU/op", "wcu_per_op", ".3f"),
    ("theory WCU/op", "theory_wcu", "d"),
    ("RCU/op", "rcu_per_op", ".3f"),
    ("failed writes", "failed_writes", "d"),
    ("requests/op", "requests_per_op", ".2f"),
    ("ms/op", "ms_per_op", ".2f"),
]
READ_COLUMNS: list[bench.Column] = [
    ("read", "read", "s"),
    ("found", "found", "d"),
    ("RCU", "rcu", ".1f"),
    ("theory RCU", "theory_rcu", ".1f"),
    ("requests", "requests", "d"),
    ("bytes read from", "bytes", ",d"),
    ("ms", "ms", ".1f"),
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/attachments.py", allow_aws=args.allow_aws)
    if target is None:
        return 2
    in_flight = max(1, round(args.attachments * args.in_flight / 100))
    print(
        f"attachments: {target.endpoint}, tables {target.prefix}*, {args.lifecycles} lifecycles, "
        f"{args.attachments} attachments of which {in_flight} in flight"
    )
    figures: dict[str, Any] = {"lifecycles": args.lifecycles, "attachments": args.attachments, "in_flight": in_flight}
    error: str | None = None
    try:
        AttachmentItem.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
        figures["transitions"], figures["item_bytes"] = transitions(args.lifecycles)
        AttachmentItem.delete_table()  # the read comparison gets a table of exactly --attachments items
        AttachmentItem.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
        with capacity.measure() as meter:
            expected = fill(args.attachments, in_flight)
        figures["fill"] = {"wcu": round(meter.wcu, 1), "theory_wcu": args.attachments + in_flight}
        figures["reads"] = reads(expected, figures)
        figures["repair"] = repair(len(expected))
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(VerificationError,))
    finally:
        try:
            deleted = tables.delete_all()
            print(f"deleted {len(deleted)} table(s): {', '.join(deleted)}", file=sys.stderr)
        except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
            print(f"warning: could not delete the tables {target.prefix}*: {failure}", file=sys.stderr)
    if "transitions" in figures:
        print(f"\nTransitions (items of {figures['item_bytes']} bytes; index projection ALL)")
        print(bench.table(TRANSITION_COLUMNS, figures["transitions"]))
    if "reads" in figures:
        print(f"\nFinding the {in_flight} attachments in flight among {args.attachments}")
        print(bench.table(READ_COLUMNS, figures["reads"]))
        ratio = figures["reads"][1]["rcu"] / max(figures["reads"][0]["rcu"], 0.5)
        figures["scan_to_index_rcu_ratio"] = round(ratio, 1)
        print(f"the scan reads {ratio:.1f}× what the index Query reads")
    if "repair" in figures:
        r = figures["repair"]
        examined = r["report"]["examined"]
        print(f"\nreconcile of {examined} stuck: {r['rcu']} RCU, {r['wcu']} WCU ({r['wcu_per_item']} per item)")
    return bench.finish("attachments", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
