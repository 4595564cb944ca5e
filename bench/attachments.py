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

import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels import attachments as ops
from ddbmodels.attachments import (
    ATTACHED,
    ATTACHING,
    DETACHED,
    DETACHING,
    FAILED,
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
from devtools.bench.floors import ALL

TENANT = "bench"
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
READ_BACK = "after a refusal, a consistent GetItem reads the item to say what changed"
MB = 1024 * 1024
PAGES = "each Scan page (≤ 1 MB) is rounded up to 4 KB on its own: up to 0.5 RCU per page after the first"


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("attachments", __doc__)
    bench.count(parser, "--lifecycles", 200, "attachments driven through every state")
    bench.count(parser, "--attachments", 5000, "items in the table for the read comparison")
    parser.add_argument(
        "--in-flight", type=float, default=1.0, metavar="PERCENT", help="percent of them in flight (default: 1)"
    )
    # --quick: fewer lifecycles; a table still over 1 MB, so the Scan takes two pages
    return bench.quick_sizes(parser, parser.parse_args(argv), lifecycles=20, attachments=3800)


REPORT: dict[str, Any] = {"tenant": TENANT, "project_key": "WEB", "size": 48_213, "sha256": SHA, "by": "bench"}
SCAN: dict[str, Any] = {"size": 120_000, "sha256": SHA, "content_type": "image/png", "attached_by": "bench"}


def begin(number: int) -> AttachmentItem:
    return ops.attachment_begin(
        **REPORT, number=number, filename=f"report-{number}.pdf", content_type="application/pdf"
    )


Raw = dict[str, Any]  # an item as DynamoDB stores it (the low-level client's answer)
TABLE_KEYS = ("pk", "id")
INDEX_KEYS = ("gp", "gs")  # in_flight: projection ALL


def key_of(item: AttachmentItem) -> tuple[str, str]:
    return str(item.pk), str(item.attachment_id)


def stored(keys: list[tuple[str, str]]) -> list[Raw | None]:
    """The items as stored, read back UNMETERED (consistent GetItems no meter sees): what the floors are sized from."""
    client = connection.client()
    table = AttachmentItem.Meta.table_name

    def read() -> list[Raw | None]:
        return [
            client.get_item(TableName=table, Key={"pk": {"S": pk}, "id": {"S": i}}, ConsistentRead=True).get("Item")
            for pk, i in keys
        ]

    return bench.unmetered(read)


def size(item: Raw | None) -> int:
    return 0 if item is None else bench.item_size(item)


def write_floor(before: Raw | None, after: Raw | None) -> bench.Cost:
    """One write from ``before`` to ``after`` (None: absent): the item (a put, or the larger of the two) and
    its ``in_flight`` entry (put, deleted, or both when its key moves; projection ALL: the whole item)."""
    item = bench.write_units(size(after)) if before is None else bench.update_units(size(before), size(after))
    entry = bench.index_write_units(before, after, TABLE_KEYS, INDEX_KEYS, ALL)
    return bench.Cost(0, item + entry, 1)


def step(
    run: bench.Run,
    name: str,
    inputs: list[Any],
    action: Callable[[Any], Any],
    floor_of: Callable[[Raw | None, Raw | None], bench.Cost] = write_floor,
    **judged: Any,
) -> list[Any]:
    """``action`` on every input under the bench's own meter; the floor from each item as stored before and after."""
    existing = [key_of(i) for i in inputs if isinstance(i, AttachmentItem)]
    before: list[Raw | None] = stored(existing) if existing else [None] * len(inputs)
    with capacity.measure() as meter:
        began = time.perf_counter()
        results = [action(value) for value in inputs]
        seconds = time.perf_counter() - began
    after = stored([key_of(i if isinstance(i, AttachmentItem) else r) for i, r in zip(inputs, results, strict=True)])
    bench.check(all(item is not None for item in after), f"{name}: an attachment is not stored after the step")
    n = len(inputs)
    floor = bench.total(floor_of(b, a) for b, a in zip(before, after, strict=True))
    extras = judged.pop("extras_of", lambda b, a: [])(before, after)
    local = judged.pop("local_of", lambda b, a: None)(before, after)
    verdict = run.judge(name, bench.Cost.of(meter), floor, per=n, local=local, extras=extras)
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


def refused_floor(before: Raw | None, after: Raw | None) -> bench.Cost:
    """A refused conditional write: DynamoDB charges it 1 WCU per KB of the item; it must change nothing."""
    bench.check(before == after, "a refused transition changed the stored item")
    return bench.Cost(0, bench.write_units(size(before)), 1)


def transitions(run: bench.Run, lifecycles: int) -> None:
    """Every transition's capacity on fresh attachments; the item size in bytes (read back unmetered)."""
    first = begin(0)
    (item0,) = stored([key_of(first)])
    run.figures.update(item_bytes=size(item0), transitions=[])
    quarter = max(1, lifecycles // 4)
    items = step(run, "begin: PutItem Attaching + keys", list(range(1, lifecycles + 1)), begin)
    rollbacks = step(run, "begin (to roll back)", list(range(lifecycles + 1, lifecycles + quarter + 1)), begin)
    step(run, "complete: → Attached, REMOVE keys", items, ops.attachment_complete)
    step(run, "detach: → Detaching, SET keys", items, lambda i: ops.attachment_detach_begin(i, by="b"))
    step(run, "detached: → Detached, REMOVE keys", items, ops.attachment_detach_complete)
    step(run, "claim: re-stamp Attaching, key moves", rollbacks, lambda i: ops.attachment_claim(i, reason="b"))
    step(run, "fail: → Failed, REMOVE keys", rollbacks, lambda i: ops.attachment_fail(i, reason="b"))
    refused = items[:quarter]

    def not_charged(before: list[Raw | None], _: list[Raw | None]) -> bench.Difference:
        return bench.Difference(
            bench.LOCAL_REFUSED_WRITE, bench.Cost(0, -sum(bench.write_units(size(b)) for b in before))
        )

    def read_back(before: list[Raw | None], _: list[Raw | None]) -> list[bench.Difference]:
        reads = sum(bench.read_units(size(b), consistent=True) for b in before)
        return [bench.Difference(READ_BACK, bench.Cost(reads, 0, len(before)))]

    errors = step(
        run,
        "refused: detach a Detached one",
        refused,
        refuse(lambda i: ops.attachment_detach_begin(i, by="b")),
        refused_floor,
        local_of=not_charged,
        extras_of=read_back,
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


def in_flight_floor(flying: Iterable[AttachmentItem]) -> tuple[bench.Cost, bench.Difference | None]:
    """One Query per state and shard of what was WRITTEN in flight (its entries added up, rounded to 4 KB, at
    least 0.5 RCU); Local charges the empty ones 0."""
    sizes: dict[str, list[int]] = {}
    for item in flying:
        sizes.setdefault(str(item.in_flight_key), []).append(bench.model_size([item]))
    keys = [key for state in INTERMEDIATE for key in IN_FLIGHT.partitions(state)]
    bench.check(set(sizes) <= set(keys), f"in-flight items in unknown partitions {set(sizes) - set(keys)}")
    empty = sum(1 for key in keys if not sizes.get(key))
    local = bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * empty)) if empty else None
    return bench.total(bench.Cost(bench.query_units(sizes.get(key, [])), 0, 1) for key in keys), local


def scan_pages(size: int) -> int:
    """The pages a Scan of a table of ``size`` bytes takes: one per started 1 MB (DynamoDB's page limit)."""
    return max(1, math.ceil(size / MB))


def reads(run: bench.Run, expected: set[tuple[str, str]], written: list[AttachmentItem]) -> None:
    """The sparse index Query against a filtered Scan; both must return exactly ``expected``."""
    described = tables.describe(AttachmentItem)
    index = next(i for i in described.get("GlobalSecondaryIndexes", []) if i["IndexName"] == "in_flight")
    table_bytes = bench.model_size(written)
    local_bytes = int(described.get("TableSizeBytes", 0))
    run.figures.update(table_bytes=table_bytes, local_table_size_bytes=local_bytes, reads=[])
    flying = [item for item in written if key_of(item) in expected]
    floor, local = in_flight_floor(flying)
    with capacity.measure() as meter:
        began = time.perf_counter()
        items = ops.attachments_in_flight(before=utcnow())
        seconds = time.perf_counter() - began
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
    # The pages from the table's size (what was written), not from the requests the meter saw.
    more = scan_pages(table_bytes) - 1
    rounding = bench.Cost(0.25 * more, 0, more)
    pages = bench.Difference(PAGES, rounding, bench.Cost(0.25 * more))
    read_row(
        run,
        "Scan table, filter state",
        scanned,
        meter,
        seconds,
        bench.Cost(bench.read_units(table_bytes), 0, 1),
        local=local_size(table_bytes, local_bytes),
        extras=[pages] if more else [],
    )
    run.figures["reads"][-1]["bytes"] = table_bytes
    for row in run.figures["reads"]:
        found = row.pop("found_keys")
        bench.check(
            found == expected,
            f"{row['read']}: {len(found)} found, {len(expected)} in flight, {len(found ^ expected)} differ",
        )


def local_size(size: int, local: int) -> bench.Difference | None:
    """DynamoDB Local's difference when it sizes the table otherwise (its TableSizeBytes) than DynamoDB's rules:
    its read units, and a page more or less for each MB its size differs by."""
    units = bench.read_units(local) - bench.read_units(size)
    pages = scan_pages(local) - scan_pages(size)
    if not units and not pages:
        return None
    why = f"DynamoDB Local sizes the table by its own rules (TableSizeBytes {local:,} B)"
    return bench.Difference(why, bench.Cost(units + 0.25 * pages, 0, pages))


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


def restamped(when: dict[str, str]) -> dict[str, str]:
    """Another time of the same length: a claim re-stamps ``gs``, the entry's sort key (it moves)."""
    text = when["S"]
    return {"S": text[:-1] + ("1" if text[-1] != "1" else "2")}


def repair(run: bench.Run, expected: set[tuple[str, str]], written: list[AttachmentItem]) -> None:
    """``reconcile`` of the stuck items; its floor from what was written in flight and each item read back after."""
    flying = [item for item in written if key_of(item) in expected]
    before = {key_of(item): item.serialize() for item in flying}
    with tempfile.TemporaryDirectory() as folder, capacity.measure() as meter:
        report = reconcile(LocalBlobStore(folder), before=utcnow())
    after = dict(zip(before, stored(list(before)), strict=True))
    bench.check(report.examined == len(expected), f"reconcile examined {report.examined}, expected {len(expected)}")
    reads_floor, local = in_flight_floor(flying)
    writes = bench.Cost()
    for key, old in before.items():
        new = after[key]
        bench.check(new is not None, f"{key}: gone after reconcile")
        assert new is not None
        if old["st"]["S"] == ATTACHING:  # claimed (the entry moves), then Failed (the entry removed)
            bench.check(new["st"]["S"] == FAILED, f"{key}: Attaching, not Failed after reconcile")
            claimed = {**new, "st": old["st"], "gp": old["gp"], "gs": restamped(old["gs"])}
            writes += write_floor(old, claimed) + write_floor(claimed, new)
        else:  # Detaching → Detached, the entry removed
            bench.check(new["st"]["S"] == DETACHED, f"{key}: Detaching, not Detached after reconcile")
            writes += write_floor(old, new)
    verdict = run.judge(f"reconcile of {len(expected)} stuck", bench.Cost.of(meter), reads_floor + writes, local=local)
    run.figures["repair"] = {
        "report": report.as_dict(),
        "wcu_per_item": round(meter.wcu / max(1, len(expected)), 3),
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
    repair(run, expected, written)


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
