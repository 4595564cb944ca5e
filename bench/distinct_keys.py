"""Distinct partition keys: RCU, requests and time of scan, sparse index, skip scan and auto (seed 000).

For each table shape ``PxMxS`` (``--shape``, repeatable; default ``300x20x1000`` and ``1000x10x100``)
a table gets P item collections of M items, each with S bytes of payload, sort keys 0 … M−1 (N).
Item 0 of each collection is its static item: it alone carries ``spk`` (= the partition key),
which feeds a sparse KEYS_ONLY global index — one entry per collection. Then every method lists
the partition keys: scan and skip-scan with 1, 4 and 16 segments (``--segments``), gsi, auto
(which probes, not knowing of the index) and auto+gsi (told about the index). Each answer is
checked against the P keys written.

Beside the measured RCU (DynamoDB's ConsumedCapacity) stands the theory of seed 000:
scan = TableSizeBytes / 4 KB × 0.5, gsi = IndexSizeBytes / 4 KB × 0.5, skip-scan = P × 0.5 per
started 4 KB of a collection's first item; auto's theory is the cheaper of scan and skip-scan,
auto+gsi's the cheapest of all three (auto's measured figure includes its probe).

DynamoDB Local is not AWS: a Scan with ExclusiveStartKey takes time proportional to its position
in the table there, so a serial skip scan is quadratic on Local (2,000 collections of ~40 items:
140 s) and segments cut it sharply; AWS seeks in constant time. Local also sizes — and charges —
a KEYS_ONLY index entry like its whole base item; AWS charges the keys + 100 bytes. Compare the
seconds with each other, not with production; the RCU follow DynamoDB's rules.

Printed on stdout: a table per shape, where the chart went (one PNG: RCU by method, measured and
theoretical, ``bench/out/distinct_keys.png``), and last exactly one line of JSON with every
figure. Progress goes to stderr, only when it is a terminal. Exit status: 0 when every method
found exactly the keys written, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/distinct_keys.py
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/distinct_keys.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from ddbmodels.core import connection  # noqa: E402
from ddbmodels.patterns import distinct_keys as dk  # noqa: E402
from devtools import bench  # noqa: E402

INDEX = "statics"
INDEX_KEY = "spk"
FILL_THREADS = 4
CHART = ROOT / "bench" / "out" / "distinct_keys.png"
AWS_INDEX_OVERHEAD_BYTES = 100  # an index entry: its attributes' names and values, plus 100 bytes


class CheckFailed(Exception):
    """A method did not find exactly the keys written."""


@dataclass(frozen=True)
class Shape:
    partitions: int
    items: int
    item_bytes: int

    @property
    def label(self) -> str:
        return f"{self.partitions}x{self.items}x{self.item_bytes}B"


def parse_shape(text: str) -> Shape:
    try:
        p, m, s = (int(part) for part in text.lower().removesuffix("b").split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected PxMxS (partitions x items x bytes), got {text!r}") from None
    if p < 1 or m < 1 or not 0 <= s <= 350_000:
        raise argparse.ArgumentTypeError(f"need P ≥ 1, M ≥ 1, 0 ≤ S ≤ 350000, got {text!r}")
    return Shape(p, m, s)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/distinct_keys.py",
        description="RCU, requests and time of listing distinct partition keys: scan, gsi, skip-scan, auto.",
    )
    parser.add_argument(
        "--shape",
        type=parse_shape,
        action="append",
        metavar="PxMxS",
        help="P collections × M items × S payload bytes; repeatable (default: 300x20x1000 and 1000x10x100)",
    )
    parser.add_argument(
        "--segments",
        type=bench.int_list("segment counts", maximum=dk.MAX_TOTAL_SEGMENTS),
        default=[1, 4, 16],
        metavar="N,N,...",
        help="segment counts for scan and skip-scan (default: 1,4,16)",
    )
    bench.add_allow_aws(parser)
    args = parser.parse_args(argv)
    args.shape = args.shape or [Shape(300, 20, 1000), Shape(1000, 10, 100)]
    return args


def partition_key(index: int) -> str:
    return f"c{index:05d}"


def create_table(name: str) -> None:
    client = connection.client()
    client.create_table(
        TableName=name,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": INDEX_KEY, "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": INDEX,
                "KeySchema": [{"AttributeName": INDEX_KEY, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})


def fill(name: str, shape: Shape) -> None:
    """P × M items by BatchWriteItem (25 a request) on a few threads; item 0 of each collection is static."""
    client = connection.client()
    payload = "x" * shape.item_bytes

    def item(p: int, n: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"pk": {"S": partition_key(p)}, "sk": {"N": str(n)}, "d": {"S": payload}}
        if n == 0:
            entry[INDEX_KEY] = {"S": partition_key(p)}
        return entry

    items = [item(p, n) for p in range(shape.partitions) for n in range(shape.items)]
    batches = [items[i : i + 25] for i in range(0, len(items), 25)]
    bar = bench.progress_bar(total=len(items), desc=f"fill {shape.label}", unit="item")

    def write(batch: list[dict[str, Any]]) -> None:
        requests: dict[str, Any] = {name: [{"PutRequest": {"Item": entry}} for entry in batch]}
        while requests:
            requests = client.batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}
        bar.update(len(batch))

    with bar, ThreadPoolExecutor(max_workers=FILL_THREADS) as pool:
        list(pool.map(write, batches))


def theory(table: dk.TableInfo, shape: Shape) -> dict[str, float]:
    """Seed 000's costs from DescribeTable's sizes (and P), eventually consistent reads."""
    first_item = table.size_bytes / table.item_count if table.item_count else 0
    return {
        "scan": table.size_bytes / 4096 * 0.5,
        "gsi": table.indexes[INDEX].size_bytes / 4096 * 0.5,
        "skip-scan": shape.partitions * 0.5 * max(1, math.ceil(first_item / 4096)),
    }


def aws_index_bytes(shape: Shape) -> int:
    """What AWS would count for the KEYS_ONLY index: per entry, names and values of spk, pk, sk, + 100 B."""
    key = len(partition_key(0))
    per_entry = len(INDEX_KEY) + key + len("pk") + key + len("sk") + 2 + AWS_INDEX_OVERHEAD_BYTES
    return shape.partitions * per_entry


def run(name: str, method: str, segments: int, expected: list[str], label: str) -> dict[str, Any]:
    """One listing, checked against the keys written; ``auto+gsi`` is auto told about the index."""
    bar = bench.progress_bar(desc=f"{label} {method}/{segments}", unit="key")
    index = INDEX if method in ("gsi", "auto+gsi") else None

    def progress(keys: int, requests: int) -> None:
        bar.update(keys - bar.n)

    with bar:
        result = dk.distinct_keys(
            name,
            method.removesuffix("+gsi"),
            segments=segments,
            index_name=index,
            on_progress=progress,
        )
    if result.keys != expected:
        missing = sorted(set(expected) - set(map(str, result.keys)))
        raise CheckFailed(
            f"{label}: {method} with {segments} segments found {len(result.keys)} keys, expected {len(expected)}"
            f" (missing {missing[:5]})"
        )
    report = result.report
    return {
        "method": method,
        "segments": segments,
        "method_used": report.method,
        "keys": report.distinct_keys,
        "requests": report.by_operation.get("Scan", 0),
        "rcu": round(report.rcu, 3),
        "retries": report.retries,
        "seconds": round(report.seconds, 3),
        **({"estimates": report.as_dict()["estimates"], "probe": report.probe} if method.startswith("auto") else {}),
    }


def bench_shape(prefix: str, shape: Shape, levels: list[int], made: list[str]) -> dict[str, Any]:
    name = f"{prefix}{shape.label.lower()}"
    create_table(name)
    made.append(name)
    began = time.perf_counter()
    fill(name, shape)
    fill_seconds = time.perf_counter() - began
    table = dk.describe(name)
    expected = [partition_key(p) for p in range(shape.partitions)]
    dk.distinct_keys(name, "scan")  # warm-up, not measured: DynamoDB Local's JIT, the HTTP connections

    rows: list[dict[str, Any]] = []
    for method in ("scan", "skip-scan"):
        rows.extend(run(name, method, segments, expected, shape.label) for segments in levels)
    rows.append(run(name, "gsi", 1, expected, shape.label))
    rows.append(run(name, "auto", 1, expected, shape.label))
    rows.append(run(name, "auto+gsi", 1, expected, shape.label))

    costs = theory(table, shape)
    costs["auto"] = min(costs["scan"], costs["skip-scan"])  # the best a table without an index allows
    costs["auto+gsi"] = min(costs.values())
    for row in rows:
        row["rcu_theory"] = round(costs[row["method"]], 3)
    return {
        "shape": shape.label,
        "partitions": shape.partitions,
        "items_per_partition": shape.items,
        "payload_bytes": shape.item_bytes,
        "table": name,
        "item_count": table.item_count,
        "table_size_bytes": table.size_bytes,
        "index_size_bytes": table.indexes[INDEX].size_bytes,
        "aws_index_size_bytes": aws_index_bytes(shape),
        "aws_gsi_rcu_theory": round(max(0.5, math.ceil(aws_index_bytes(shape) / 4096) * 0.5), 3),
        "fill_seconds": round(fill_seconds, 3),
        "theory": {k: round(v, 3) for k, v in costs.items()},
        "results": rows,
    }


COLUMNS: list[bench.Column] = [
    ("method", "method", "s"),
    ("segments", "segments", "d"),
    ("used", "method_used", "s"),
    ("keys", "keys", "d"),
    ("requests", "requests", "d"),
    ("RCU", "rcu", ".1f"),
    ("RCU theory", "rcu_theory", ".1f"),
    ("seconds", "seconds", ".2f"),
    ("retries", "retries", "d"),
]


def chart(shapes: list[dict[str, Any]], path: Path) -> None:
    """One PNG: per shape and method (one segment), measured RCU beside the theoretical, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, measured, theoretical = [], [], []
    for shape in shapes:
        for row in shape["results"]:
            if row["segments"] == 1:
                labels.append(f"{shape['shape']}\n{row['method']}")
                measured.append(row["rcu"])
                theoretical.append(row["rcu_theory"])
    positions = list(range(len(labels)))
    width = 0.4
    figure, axes = plt.subplots(figsize=(max(8, 1.1 * len(labels)), 5))
    bars = axes.bar([x - width / 2 for x in positions], measured, width, label="measured (ConsumedCapacity)")
    axes.bar_label(bars, fmt="%.1f", fontsize=7)
    bars = axes.bar([x + width / 2 for x in positions], theoretical, width, label="theory (seed 000)")
    axes.bar_label(bars, fmt="%.1f", fontsize=7)
    axes.set_xticks(positions, labels, fontsize=8)
    axes.set_yscale("log")
    axes.set_ylim(bottom=max(0.1, min(measured + theoretical) / 3))
    axes.set_ylabel("RCU (log scale)")
    axes.set_title("Distinct partition keys: RCU by method (1 segment; auto includes its probe; DynamoDB Local)")
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/distinct_keys.py", allow_aws=args.allow_aws, tag="dk")
    if target is None:
        return 2
    prefix = target.prefix
    shapes_text = ", ".join(shape.label for shape in args.shape)
    print(f"distinct_keys: {target.endpoint}, tables {prefix}*, shapes {shapes_text}, segments {args.segments}")

    results: list[dict[str, Any]] = []
    made: list[str] = []
    error: str | None = None
    try:
        for shape in args.shape:
            results.append(bench_shape(prefix, shape, args.segments, made))
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(CheckFailed,))
    finally:
        client = connection.client()
        for name in made:
            try:
                client.delete_table(TableName=name)
            except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
                print(f"warning: could not delete table {name}: {failure}", file=sys.stderr)
        if made:
            print(f"deleted {len(made)} table(s): {', '.join(made)}", file=sys.stderr)

    for shape in results:
        print()
        print(
            f"{shape['shape']}: {shape['item_count']} items, {shape['table_size_bytes']:,} bytes; "
            f"index {shape['index_size_bytes']:,} bytes on Local (AWS would hold ≈ {shape['aws_index_size_bytes']:,}: "
            f"gsi ≈ {shape['aws_gsi_rcu_theory']} RCU there); filled in {shape['fill_seconds']:.1f} s"
        )
        print(bench.table(COLUMNS, shape["results"]))
        for auto in (row for row in shape["results"] if row["method"].startswith("auto")):
            probe = auto.get("probe")
            probed = (
                f"probe: segment 0 of {probe['total_segments']}, {probe['rcu']} RCU, "
                f"≈ {probe['collections_estimate']:.0f} collections"
                if probe
                else "no probe"
            )
            print(f"{auto['method']} chose {auto['method_used']}; estimates {auto['estimates']}; {probed}")
    chart_path: str | None = None
    if results:
        print()
        print(
            "note: on DynamoDB Local a Scan with ExclusiveStartKey takes time proportional to its position in the "
            "table, so a serial skip scan is quadratic here and segments cut it sharply; AWS seeks in constant time. "
            "Local also charges a KEYS_ONLY index entry like its whole base item."
        )
        try:
            chart(results, CHART)
            chart_path = str(CHART.relative_to(ROOT))
            print(f"chart: {chart_path}")
        except Exception as failure:  # noqa: BLE001 (a missing chart must not hide the figures)
            print(f"warning: no chart: {failure}", file=sys.stderr)
    figures = {"segments": args.segments, "chart": chart_path, "shapes": results}
    return bench.finish("distinct_keys", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
