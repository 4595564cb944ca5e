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

DynamoDB's floors: a transition 1 WCU per started KB for the item plus the same for every index
entry put or deleted (a key change is both), 1 request; a refused transition 1 WCU per KB (DynamoDB
charges a failed conditional write; DynamoDB Local reports no capacity for it and the meter counts
it under ``conditional_failures``) plus the consistent GetItem that tells what changed; a Query
0.5 RCU per started 4 KB, at least 0.5 even for a partition with nothing in flight (Local charges
that one 0); a Scan 0.5 RCU per started 4 KB of the table (by DynamoDB's item sizes), each 1 MB
page rounded on its own. Where Local differs both floors are printed.

Printed on stdout: the tables, the notes on the floors and, last, exactly one line of JSON. Exit 0
when both reads found exactly the in-flight items and every figure is its floor or explained, 1
otherwise, 2 when refused (no DYNAMODB_ENDPOINT_URL).

    python -m devtools.services run -- .venv/bin/python bench/attachments.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels import attachments as ops
from ddbmodels.attachments import (
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
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.core.keys import utcnow
from devtools import bench

TENANT = "bench"
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
READ_BACK = "after a refusal, a consistent GetItem reads the item to say what changed"
PAGES = "each Scan page (≤ 1 MB) is rounded up to 4 KB on its own: up to 0.5 RCU per page after the first"


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("attachments", __doc__)
    bench.count(parser, "--lifecycles", 200, "attachments driven through every state")
    bench.count(parser, "--attachments", 5000, "items in the table for the read comparison")
    parser.add_argument(
        "--in-flight", type=float, default=1.0, metavar="PERCENT", help="percent of them in flight (default: 1)"
    )
    return parser.parse_args(argv)


REPORT: dict[str, Any] = {"tenant": TENANT, "project_key": "WEB", "size": 48_213, "sha256": SHA, "by": "bench"}
SCAN: dict[str, Any] = {"size": 120_000, "sha256": SHA, "content_type": "image/png", "attached_by": "bench"}


def begin(number: int) -> AttachmentItem:
    return ops.attachment_begin(
        **REPORT, number=number, filename=f"report-{number}.pdf", content_type="application/pdf"
    )


def step(
    run: bench.Run, name: str, inputs: list[Any], action: Callable[[Any], Any], floor: bench.Cost, **judged: Any
) -> list[Any]:
    """``action`` on every input under one meter, judged against ``floor`` per operation; the results."""
    with capacity.measure() as meter:
        began = time.perf_counter()
        results = [action(value) for value in inputs]
        seconds = time.perf_counter() - began
    n = len(inputs)
    verdict = run.judge(name, bench.Cost.of(meter), floor.times(n), per=n, **judged)
    run.figures["transitions"].append(
        {"step": name, "operations": n, "refused": meter.conditional_failures, "ms_per_op": 1000 * seconds / n}
        | verdict.cells()
    )
    return results


def refuse(action: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``action``, which must be refused with ChangedSinceRead (the refused row expects nothing else)."""

    def refused(item: Any) -> Any:
        try:
            action(item)
        except ChangedSinceRead as error:
            return error
        raise bench.CheckFailed(f"{item.filename}: a transition that must be refused was not")

    return refused


def transitions(run: bench.Run, lifecycles: int) -> None:
    """Every transition's capacity on fresh attachments; the item size in bytes."""
    first = begin(0)
    size = bench.model_size([ops.attachment_get_by_key(first.pk, first.attachment_id, consistent=True)])
    u = bench.write_units(size)  # an entry of a projection-ALL index is as large as the item
    run.figures.update(item_bytes=size, transitions=[])
    quarter = max(1, lifecycles // 4)
    put = bench.Cost(0, 2 * u, 1)
    items = step(run, "begin: PutItem Attaching + keys", list(range(1, lifecycles + 1)), begin, put)
    rollbacks = step(run, "begin (to roll back)", list(range(lifecycles + 1, lifecycles + quarter + 1)), begin, put)
    step(run, "complete: → Attached, REMOVE keys", items, ops.attachment_complete, put)
    step(run, "detach: → Detaching, SET keys", items, lambda i: ops.attachment_detach_begin(i, by="b"), put)
    step(run, "detached: → Detached, REMOVE keys", items, ops.attachment_detach_complete, put)
    claim = bench.Cost(0, 3 * u, 1)
    step(run, "claim: re-stamp Attaching, key moves", rollbacks, lambda i: ops.attachment_claim(i, reason="b"), claim)
    step(run, "fail: → Failed, REMOVE keys", rollbacks, lambda i: ops.attachment_fail(i, reason="b"), put)
    refused = items[:quarter]
    errors = step(
        run,
        "refused: detach a Detached one",
        refused,
        refuse(lambda i: ops.attachment_detach_begin(i, by="b")),
        bench.Cost(0, u, 1),
        local=bench.Difference(bench.LOCAL_REFUSED_WRITE, bench.Cost(0, -u * len(refused))),
        extras=[
            bench.Difference(READ_BACK, bench.Cost(bench.read_units(size, consistent=True), 0, 1).times(len(refused)))
        ],
    )
    bench.check(run.figures["transitions"][-1]["refused"] == len(errors), "the meter did not count every refusal")


def fill(total: int, in_flight: int) -> tuple[set[tuple[str, str]], list[AttachmentItem]]:
    """``total`` attachments, ``in_flight`` of them Attaching/Detaching since an hour ago (BatchWriteItem)."""
    hour_ago, now = utcnow() - timedelta(hours=1), utcnow()
    flying: set[tuple[str, str]] = set()
    written: list[AttachmentItem] = []
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
                **SCAN,
                storage_name=storage_name(TENANT, "WEB", number, attachment_id, f"scan-{n}.png"),
                created_at=now,
                updated_at=now,
            )
            if state in INTERMEDIATE:
                item.in_flight_key = IN_FLIGHT.partition_value(state, item)
                item.in_flight_since = hour_ago
                flying.add((item.pk, attachment_id))
            batch.save(item)
            written.append(item)
            bar.update(1)
    return flying, written


def in_flight_floor(found: Iterable[AttachmentItem]) -> tuple[bench.Cost, bench.Difference | None]:
    """One Query per state and shard, each ≥ 0.5 RCU for what it returns; Local charges the empty ones 0."""
    sizes = Counter[str]()
    for item in found:
        sizes[str(item.in_flight_key)] += bench.model_size([item])
    keys = [key for state in INTERMEDIATE for key in IN_FLIGHT.partitions(state)]
    bench.check(set(sizes) <= set(keys), f"in-flight items from unknown partitions {set(sizes) - set(keys)}")
    empty = sum(1 for key in keys if not sizes[key])
    local = bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * empty)) if empty else None
    return bench.total(bench.Cost(bench.read_units(sizes[key]), 0, 1) for key in keys), local


def reads(run: bench.Run, expected: set[tuple[str, str]], written: list[AttachmentItem]) -> None:
    """The sparse index Query against a filtered Scan; both must return exactly ``expected``."""
    described = tables.describe(AttachmentItem)
    index = next(i for i in described.get("GlobalSecondaryIndexes", []) if i["IndexName"] == "in_flight")
    table_bytes = bench.model_size(written)
    run.figures.update(table_bytes=table_bytes, local_table_size_bytes=described.get("TableSizeBytes"), reads=[])
    with capacity.measure() as meter:
        began = time.perf_counter()
        items = ops.attachments_in_flight(before=utcnow())
        seconds = time.perf_counter() - began
    floor, local = in_flight_floor(items)
    read_row(
        run,
        "Query in_flight (8 partitions)",
        {(i.pk, i.attachment_id) for i in items},
        meter,
        seconds,
        floor,
        local=local,
    )
    run.figures["reads"][-1]["bytes"] = int(index.get("IndexSizeBytes", 0))
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
    rounding = 0.25 * (meter.requests - 1)
    pages = bench.Difference(PAGES, bench.Cost(rounding, 0, meter.requests - 1), bench.Cost(rounding))
    read_row(
        run,
        "Scan table, filter state",
        scanned,
        meter,
        seconds,
        bench.Cost(bench.read_units(table_bytes), 0, 1),
        local=local_size(table_bytes, int(described.get("TableSizeBytes", 0))),
        extras=[pages],
    )
    run.figures["reads"][-1]["bytes"] = table_bytes
    for row in run.figures["reads"]:
        found = row.pop("found_keys")
        bench.check(
            found == expected,
            f"{row['read']}: {len(found)} found, {len(expected)} in flight, {len(found ^ expected)} differ",
        )


def local_size(size: int, local: int) -> bench.Difference | None:
    """DynamoDB Local's difference when it sizes the table otherwise (its TableSizeBytes) than DynamoDB's rules."""
    if bench.read_units(local) == bench.read_units(size):
        return None
    why = f"DynamoDB Local sizes the table by its own rules (TableSizeBytes {local:,} B)"
    return bench.Difference(why, bench.Cost(bench.read_units(local) - bench.read_units(size)))


def read_row(
    run: bench.Run,
    name: str,
    found: set[tuple[str, str]],
    meter: capacity.CapacityMeter,
    seconds: float,
    floor: bench.Cost,
    **judged: Any,
) -> None:
    verdict = run.judge(name, bench.Cost.of(meter), floor, **judged)
    run.figures["reads"].append(
        {"read": name, "found": len(found), "found_keys": found, "ms": round(1000 * seconds, 1)} | verdict.cells()
    )


def repair(run: bench.Run, expected: int, item_bytes: int) -> None:
    in_flight = ops.attachments_in_flight(before=utcnow())  # what reconcile will read (not metered)
    with tempfile.TemporaryDirectory() as folder, capacity.measure() as meter:
        report = reconcile(LocalBlobStore(folder), before=utcnow())
    bench.check(report.examined == expected, f"reconcile examined {report.examined}, expected {expected}")
    u = bench.write_units(item_bytes)
    reads_floor, local = in_flight_floor(in_flight)
    writes = bench.Cost(0, 5 * u, 2).times(report.rolled_back) + bench.Cost(0, 2 * u, 1).times(report.detached)
    verdict = run.judge(
        f"reconcile of {report.examined} stuck", bench.Cost.of(meter), reads_floor + writes, local=local
    )
    run.figures["repair"] = {
        "report": report.as_dict(),
        "wcu_per_item": round(meter.wcu / max(1, report.examined), 3),
        **verdict.cells(),
    }


def measure(run: bench.Run) -> None:
    args = run.args
    in_flight = max(1, round(args.attachments * args.in_flight / 100))
    run.figures.update(lifecycles=args.lifecycles, attachments=args.attachments, in_flight=in_flight)
    AttachmentItem.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
    transitions(run, args.lifecycles)
    AttachmentItem.delete_table()  # the read comparison gets a table of exactly --attachments items
    AttachmentItem.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
    with capacity.measure() as meter:
        expected, written = fill(args.attachments, in_flight)
    units = sum(bench.write_units(bench.model_size([item])) for item in written)
    flying = sum(bench.write_units(bench.model_size([item])) for item in written if item.state in INTERMEDIATE)
    verdict = run.judge("fill (BatchWriteItem)", bench.Cost(meter.rcu, meter.wcu), bench.Cost(0, units + flying))
    run.figures["fill"] = verdict.cells()
    reads(run, expected, written)
    repair(run, len(expected), run.figures["item_bytes"])


TRANSITION_COLUMNS = bench.columns(
    "transition=step:s | ops=operations:d | @floors | @req | refused:d | ms/op=ms_per_op:.2f"
)
READ_COLUMNS = bench.columns("read:s | found:d | @rcu | @req | @verdict | bytes read from=bytes:,d | ms:.1f")


def show(run: bench.Run) -> None:
    figures, args = run.figures, run.args
    title = f"Transitions (items of {figures.get('item_bytes')} bytes; index projection ALL)"
    bench.show_table(title, TRANSITION_COLUMNS, figures.get("transitions"))
    if len(figures.get("reads", [])) == 2:
        print(f"\nFinding the {figures['in_flight']} attachments in flight among {args.attachments}")
        print(bench.table(READ_COLUMNS, figures["reads"]))
        print(
            f"table: {figures['table_bytes']:,} bytes by DynamoDB's item sizes, {figures['local_table_size_bytes']:,} "
            "by DynamoDB Local's TableSizeBytes (the Scan's floor uses DynamoDB's)"
        )
        ratio = figures["reads"][1]["m_rcu"] / max(figures["reads"][0]["m_rcu"], 0.5)
        figures["scan_to_index_rcu_ratio"] = round(ratio, 1)
        print(f"the scan reads {ratio:.1f}× what the index Query reads")
    others = [{"what": "fill (BatchWriteItem)", **figures["fill"]}] if "fill" in figures else []
    if "repair" in figures:
        others.append({"what": f"reconcile of {figures['repair']['report']['examined']} stuck", **figures["repair"]})
    bench.show_table("", bench.columns("operation=what:s | @floors"), others)


def main(argv: list[str] | None = None) -> int:
    headline = ", {lifecycles} lifecycles, {attachments} attachments ({in_flight} % in flight)"
    return bench.run("attachments", parse_args(argv), measure, show, headline=headline)


if __name__ == "__main__":
    sys.exit(main())
