"""Distinct partition keys: RCU, requests and time of scan, sparse index, skip scan and auto.

For each table shape ``PxMxS`` (``--shape``, repeatable; default ``300x20x1000`` and ``1000x10x100``)
a table gets P item collections of M items, each with S bytes of payload, sort keys 0 … M−1 (N).
Item 0 of each collection is its static item: it alone carries ``spk`` (= the partition key),
which feeds a sparse KEYS_ONLY global index — one entry per collection. Then every method lists
the partition keys: scan and skip-scan with 1, 4 and 16 segments (``--segments``), gsi, auto
(which probes, not knowing of the index) and auto+gsi (told about the index). Each answer is
checked against the P keys written.

DynamoDB's floors, from the items written (DynamoDB's size rules, not DescribeTable's figures):
scan = 0.5 RCU per started 4 KB of the table; gsi = the same of the index entries (their keys:
``spk``, ``pk``, ``sk``; the 100 bytes of overhead per entry count in IndexSizeBytes, not in
reads); skip-scan = per collection 0.5 RCU per started 4 KB of its first item, plus one Scan per
segment that finds nothing (0.5 RCU); auto = the cheapest method's. Each Scan page is rounded up
to 4 KB on its own (up to 0.5 RCU per page after the first: the stated tolerance). DynamoDB Local
differs, and both floors are printed, the ratio using Local's: it sizes items by its own rules
(its TableSizeBytes), sizes a KEYS_ONLY index entry like its whole base item (its IndexSizeBytes),
and charges a Scan that finds nothing 0.

DynamoDB Local is not AWS in time either: a Scan with ExclusiveStartKey takes time proportional to
its position in the table there, so a serial skip scan is quadratic on Local (2,000 collections of
~40 items: 140 s) and segments cut it sharply; AWS seeks in constant time. Compare the seconds
with each other, not with production.

auto must spend (its probe included) at most 110 % of the cheapest serial method measured on each
shape (auto+gsi: gsi among them); it decides from DescribeTable when it can and otherwise probes one
segment of 10–20 by skip-scan, and each auto row prints its choice and reason.

The command line (``--cli-shape``, default ``600x10x100``): ``python -m ddbmodels distinct-keys
--help`` is timed 5 times (goal: median ≤ 0.3 s; ``-X importtime`` gives the imports' share), then
whole runs on one table — ``python -m ddbmodels distinct-keys`` (serial and ``--segments 4``),
``manage.py distinct_keys`` and AWS's sample printer (``bench/aws_sample_distinct_pks.py``, serial
skip-scan), each 3 times (the median counts) and checked to print the P keys; goal: the faster
ddbmodels run ≤ 0.1 × the sample's. The two goals are wall times: they fail the run only with
``--time-goals`` (on a quiet machine; on a busy one the start alone took 0.9 s), and are printed
otherwise, so that ``make bench`` does not turn red with the machine's load. With ``--quick`` each
command runs once (and ``--help`` once) and is checked for its keys.
Wall times on a shared machine vary with its load: compare them with each other.

Printed on stdout: a table per shape, the notes on the floors, where the chart went (one PNG: RCU
by method, measured and DynamoDB's floor, ``bench/out/distinct_keys.png``), and last exactly one
line of JSON with every figure. Exit status: 0 when every method found exactly the keys written
and every figure is its floor or explained, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/distinct_keys.py
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: find ddbmodels

from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.core.threads import map_in_threads  # noqa: E402
from ddbmodels.patterns import distinct_keys as dk  # noqa: E402
from devtools import bench  # noqa: E402

INDEX = "statics"
INDEX_KEY = "spk"
FILL_THREADS = 4
CHART = ROOT / "bench" / "out" / "distinct_keys.png"
AWS_INDEX_OVERHEAD_BYTES = 100  # an index entry: its attributes' names and values, plus 100 bytes
AUTO_WITHIN = 1.10  # auto's RCU (its probe included) ≤ 110 % of the cheapest method's, per shape
STARTUP_GOAL_S = 0.3  # python -m ddbmodels: interpreter, imports and argument parsing
RUNS_EACH = 3  # whole runs of each command line, the median reported
CLI_GOAL = 0.1  # the whole run on the command-line shape ≤ 0.1 × AWS's sample printer's
AWS_SAMPLE = ROOT / "bench" / "aws_sample_distinct_pks.py"


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
    parser = bench.parser("distinct_keys", __doc__)
    parser.add_argument(
        "--shape",
        type=parse_shape,
        action="append",
        metavar="PxMxS",
        help="P collections × M items × S payload bytes; repeatable (default: 300x20x1000 and 1000x10x100)",
    )
    bench.levels(parser, "--segments", [1, 4, 16], "segment counts for scan and skip-scan", dk.MAX_TOTAL_SEGMENTS)
    parser.add_argument(
        "--cli-shape",
        type=parse_shape,
        default=Shape(600, 10, 100),
        metavar="PxMxS",
        help="the table python -m ddbmodels and AWS's sample printer list, timed (default: 600x10x100)",
    )
    parser.add_argument(
        "--time-goals",
        action="store_true",
        help="fail the run when the command line misses its time goals (start ≤ 0.3 s, ≤ 0.1 × AWS's sample)",
    )
    args = parser.parse_args(argv)
    # --quick: two small shapes (one with items of 1 KB, one of many small collections), fewer segments
    bench.quick_sizes(
        parser, args, shape=[Shape(60, 10, 1000), Shape(200, 5, 100)], segments=[1, 4], cli_shape=Shape(150, 5, 100)
    )
    args.shape = args.shape or [Shape(300, 20, 1000), Shape(1000, 10, 100)]
    return args


def partition_key(index: int) -> str:
    return f"c{index:05d}"


def create_table(name: str) -> None:
    """CreateTable, idempotent (a retry after a slow answer finds it made), then ACTIVE."""
    tables.create_table(
        {
            "TableName": name,
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": INDEX_KEY, "AttributeType": "S"},
            ],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": INDEX,
                    "KeySchema": [{"AttributeName": INDEX_KEY, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ],
            "BillingMode": "PAY_PER_REQUEST",
        }
    )


def items_of(shape: Shape) -> list[dict[str, Any]]:
    """P × M items; item 0 of each collection is static (it carries the index key)."""
    payload = "x" * shape.item_bytes

    def item(p: int, n: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"pk": {"S": partition_key(p)}, "sk": {"N": str(n)}, "d": {"S": payload}}
        if n == 0:
            entry[INDEX_KEY] = {"S": partition_key(p)}
        return entry

    return [item(p, n) for p in range(shape.partitions) for n in range(shape.items)]


def fill(name: str, items: list[dict[str, Any]], label: str) -> None:
    """BatchWriteItem, 25 a request, on a few threads."""
    client = connection.client()
    bar = bench.progress_bar(total=len(items), desc=f"fill {label}", unit="item")

    def write(batch: list[dict[str, Any]]) -> None:
        requests: dict[str, Any] = {name: [{"PutRequest": {"Item": entry}} for entry in batch]}
        while requests:
            requests = client.batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}
        bar.update(len(batch))

    with bar:
        map_in_threads(write, [items[i : i + 25] for i in range(0, len(items), 25)], workers=FILL_THREADS)


@dataclass(frozen=True)
class Floors:
    """A shape's floors: DynamoDB's sizes and Local's, and the first item of a collection."""

    table: int
    local_table: int
    index: int
    local_index: int
    first_item: int
    partitions: int
    items_each: int  # items in each collection

    def extra_pages(self, method: str, segments: int) -> int:
        """The most Scan or Query pages beyond the floor's requests, from what was asked (1 MB a page at most).

        scan: one per segment and one per started MB of the table (its larger size, DynamoDB's or
        Local's), beyond the floor's one; gsi: one per MB of the index; skip-scan: none (a page a key).
        """
        if method == "scan":
            return segments - 1 + max(self.table, self.local_table) // PAGE_BYTES
        if method == "gsi":
            return max(self.index, self.local_index) // PAGE_BYTES
        return 0

    def of(self, method: str, segments: int) -> tuple[bench.Cost, bench.Difference | None]:
        """DynamoDB's floor of one listing, and how DynamoDB Local's differs (named)."""
        if method == "scan":
            floor, local = bench.read_units(self.table), bench.read_units(self.local_table)
            why = f"DynamoDB Local sizes the table by its own rules (TableSizeBytes {self.local_table:,} B)"
        elif method == "gsi":
            floor, local = bench.read_units(self.index), bench.read_units(self.local_index)
            why = f"DynamoDB Local sizes a KEYS_ONLY entry like its base item (IndexSizeBytes {self.local_index:,} B)"
        else:
            rcu = self.partitions * bench.read_units(self.first_item) + 0.5 * segments
            cost = bench.Cost(rcu, 0, self.partitions + segments)
            return cost, bench.Difference(
                f"{bench.LOCAL_EMPTY_QUERY}: the last Scan of each segment", bench.Cost(-0.5 * segments)
            )
        difference = bench.Difference(why, bench.Cost(local - floor)) if local != floor else None
        return bench.Cost(floor, 0, 1), difference


def keys_in_segment(name: str, segment: int, total: int) -> int:
    """The distinct partition keys in one Scan segment of the table (call it unmetered)."""
    client = connection.client()
    request: dict[str, Any] = {"TableName": name, "Segment": segment, "TotalSegments": total}
    found: set[str] = set()
    while True:
        page = client.scan(**request, ProjectionExpression="pk")
        found.update(item["pk"]["S"] for item in page["Items"])
        if "LastEvaluatedKey" not in page:
            return len(found)
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def probe_floor(collections: int, segments: int, floors: Floors) -> tuple[bench.Cost, bool]:
    """DynamoDB's cost of auto's probe of one segment in ``segments`` holding ``collections`` collections.

    It reads each collection's first item (a Limit-1 Scan) until a skip-scan would cost more than a scan
    (read so far × segments × an average item's read ≥ the table's read, by DescribeTable's sizes, Local's
    here), or the segment ends: then one more Scan, which finds nothing (0.5 RCU). Also: whether it ended.
    """
    items = floors.partitions * floors.items_each
    scan = bench.read_units(floors.local_table)
    average = bench.read_units(math.ceil(floors.local_table / items))
    budget = math.ceil(scan / (segments * average))  # it stops after reading this many collections
    reads = min(collections, budget)
    ended = collections < budget
    cost = bench.Cost(reads * bench.read_units(floors.first_item), 0, reads)
    return (cost + bench.Cost(0.5, 0, 1) if ended else cost), ended


OTHERS = {"DescribeTable": (1, 1)}  # besides its Scans or Queries, each listing reads the table's description
PAGES = "each Scan page is rounded up to 4 KB on its own (up to 0.5 RCU per page after the first)"
PAGE_BYTES = 1 << 20  # a Scan or Query page holds at most 1 MB


def listing(run: bench.Run, name: str, method: str, segments: int, floors: Floors, label: str) -> dict[str, Any]:
    """One listing, checked against the keys written, judged against its floor."""
    bar = bench.progress_bar(desc=f"{label} {method}/{segments}", unit="key")
    index = INDEX if method in ("gsi", "auto+gsi") else None
    with bar, capacity.measure() as meter:  # the bench's own meter, not the method's report
        result = dk.distinct_keys(
            name,
            method.removesuffix("+gsi"),
            segments=segments,
            index_name=index,
            on_progress=lambda keys, _: bar.update(keys - bar.n),
        )
    expected = [partition_key(p) for p in range(floors.partitions)]
    missing = sorted(set(expected) - set(map(str, result.keys)))
    bench.check(
        result.keys == expected, f"{label}: {method}/{segments} found {len(result.keys)} keys (missing {missing[:5]})"
    )
    report = result.report
    others = bench.unexpected_operations(meter.by_operation, ["Scan", "Query"], OTHERS)
    bench.check(not others, f"{label}: {method}/{segments}: requests other than its Scans: {', '.join(others)}")
    scans = meter.by_operation.get("Scan", 0) + meter.by_operation.get("Query", 0)
    reported = f"{label}: {method} reported {report.rcu} RCU, the bench measured {meter.rcu}"
    bench.check(abs(report.rcu - meter.rcu) < 1e-6, reported)
    used = report.method
    floor, local = floors.of(used, segments)
    extras = []
    if method.startswith("auto"):
        cheapest = min(
            (floors.of(m, 1)[0] for m in ("scan", "skip-scan", *(["gsi"] if index else []))), key=lambda c: c.rcu
        )
        if cheapest.rcu < floor.rcu:
            why = f"it chose {used} by its estimate ({report.collections_source or 'no sort key'})"
            extras.append(
                bench.Difference(f"{why}; the cheapest method's floor is lower", bench.Cost(floor.rcu - cheapest.rcu))
            )
        floor = bench.Cost(cheapest.rcu, 0, floor.requests)
        if report.probe and report.probe["total_segments"] > 1:
            asked = int(report.probe["total_segments"])  # what it asked: segment 0 of T (its cost comes from here)
            bench.check(asked <= dk.estimate.PROBE_SEGMENTS, f"{label}: a probe of 1 in {asked} segments")
            collections = bench.unmetered(lambda: keys_in_segment(name, 0, asked))
            cost, ended = probe_floor(collections, asked, floors)
            extras.append(
                bench.Difference(
                    f"its probe: segment 0 of {asked} skip-scanned ({collections} collections in it, read back "
                    f"unmetered), stopped once a skip-scan would cost more than a scan",
                    cost,
                )
            )
            if ended:  # the probe's last Scan found nothing: DynamoDB Local charges it 0
                why = f"{local.why}; " if local else ""
                cost = local.cost if local else bench.Cost()
                local = bench.Difference(
                    f"{why}{bench.LOCAL_EMPTY_QUERY}: the probe's last Scan", cost + bench.Cost(-0.5)
                )
    pages = floors.extra_pages(used, segments)  # at most, from the sizes and the segments asked
    if pages:
        half = bench.Cost(0.25 * pages, 0, pages / 2)  # 0 … pages more requests, 0 … 0.5 RCU more each
        extras.append(bench.Difference(f"{PAGES}; up to {pages} more page(s)", half, half))
    measured = bench.Cost(meter.rcu, 0, scans)
    verdict = run.judge(f"{label} {method}/{segments}", measured, floor, local=local, extras=extras)
    return {
        "method": method,
        "segments": segments,
        "method_used": used,
        "keys": report.distinct_keys,
        "retries": report.retries,
        "seconds": round(report.seconds, 3),
        **(
            {"estimates": report.as_dict()["estimates"], "probe": report.probe, "reason": report.reason}
            if method.startswith("auto")
            else {}
        ),
        **verdict.cells(),
    }


def check_auto(rows: list[dict[str, Any]], label: str) -> None:
    """auto (probe included) within AUTO_WITHIN of the cheapest serial method measured (auto+gsi: gsi too)."""
    measured = {row["method"]: row["m_rcu"] for row in rows if row["segments"] == 1}
    for auto, candidates in (("auto", ("scan", "skip-scan")), ("auto+gsi", ("scan", "skip-scan", "gsi"))):
        row = next(row for row in rows if row["method"] == auto)
        cheapest = min(candidates, key=measured.__getitem__)
        row["cheapest"] = cheapest
        row["x_cheapest"] = round(row["m_rcu"] / measured[cheapest], 3) if measured[cheapest] else 1.0
        bench.check(
            row["m_rcu"] <= AUTO_WITHIN * measured[cheapest],
            f"{label}: {auto} spent {row['m_rcu']} RCU, over {AUTO_WITHIN:.0%} of {cheapest}'s {measured[cheapest]}",
        )


def bench_shape(run: bench.Run, shape: Shape) -> None:
    name = f"{run.target.prefix}{shape.label.lower()}"
    create_table(name)
    items = items_of(shape)
    began = time.perf_counter()
    fill(name, items, shape.label)
    fill_seconds = time.perf_counter() - began
    table = dk.describe(name)
    statics = [item for item in items if INDEX_KEY in item]
    entries = [{key: item[key] for key in ("pk", "sk", INDEX_KEY)} for item in statics]
    floors = Floors(
        table=sum(bench.item_size(item) for item in items),
        local_table=table.size_bytes,
        index=sum(bench.item_size(entry) for entry in entries),
        local_index=table.indexes[INDEX].size_bytes,
        first_item=max(bench.item_size(item) for item in statics),
        partitions=shape.partitions,
        items_each=shape.items,
    )
    dk.distinct_keys(name, "scan")  # warm-up, not measured: DynamoDB Local's JIT, the HTTP connections
    rows = [
        listing(run, name, method, n, floors, shape.label)
        for method in ("scan", "skip-scan")
        for n in run.args.segments
    ]
    rows += [listing(run, name, method, 1, floors, shape.label) for method in ("gsi", "auto", "auto+gsi")]
    check_auto(rows, shape.label)
    run.figures["shapes"].append(
        {
            "shape": shape.label,
            "table": name,
            "item_count": table.item_count,
            "table_size_bytes": floors.table,
            "local_table_size_bytes": floors.local_table,
            "index_size_bytes": floors.index + AWS_INDEX_OVERHEAD_BYTES * len(entries),
            "index_read_bytes": floors.index,
            "local_index_size_bytes": floors.local_index,
            "fill_seconds": round(fill_seconds, 3),
            "results": rows,
        }
    )


def timed(command: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    return time.perf_counter() - began, done


def command_line(run: bench.Run, shape: Shape) -> None:
    """python -m ddbmodels: its start (``--help``), then a whole run beside manage.py's and AWS's sample's."""
    name = f"{run.target.prefix}cli-{shape.label.lower()}"
    create_table(name)
    fill(name, items_of(shape), f"cli {shape.label}")
    settings = connection.current()
    env = {
        **os.environ,
        "DYNAMODB_ENDPOINT_URL": settings.endpoint_url or "",
        "AWS_ENDPOINT_URL_DYNAMODB": settings.endpoint_url or "",  # the sample's boto3 reads this one
        "AWS_DEFAULT_REGION": settings.region,
        "DJANGO_SETTINGS_MODULE": "tracker.settings.local",
    }
    if not settings.endpoint_url:
        for variable in ("DYNAMODB_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
            env.pop(variable)
    python = sys.executable
    quick = run.args.quick  # one run of each, checked for its keys
    starts = [timed([python, "-m", "ddbmodels", "distinct-keys", "--help"], env)[0] for _ in range(1 if quick else 5)]
    imports = timed([python, "-X", "importtime", "-m", "ddbmodels", "distinct-keys", "--help"], env)[1].stderr
    # -X importtime: "import time: self | cumulative | name"; the top-level packages' cumulative times.
    import_us = sum(
        int(line.split("|")[1])
        for line in imports.splitlines()
        if line.startswith("import time:")
        and line.count("|") == 2
        and not line.split("|")[2].startswith("  ")
        and line.split("|")[1].strip().isdigit()
    )
    expected = [partition_key(p) for p in range(shape.partitions)]
    runs: dict[str, float] = {}
    for label, command in (
        ("python -m ddbmodels distinct-keys", [python, "-m", "ddbmodels", "distinct-keys", name]),
        ("… --segments 4", [python, "-m", "ddbmodels", "distinct-keys", name, "--segments", "4"]),
        ("manage.py distinct_keys", [python, "manage.py", "distinct_keys", name]),
        ("AWS's sample", [python, str(AWS_SAMPLE), "--region", settings.region, "--table-name", name]),
    ):
        timings = []
        for _ in range(1 if quick else RUNS_EACH):  # the median of a few: one run on a shared machine is noise
            seconds, done = timed(command, env)
            bench.check(done.returncode == 0, f"{label} failed: {done.stderr.strip()[-300:]}")
            bench.check(sorted(done.stdout.split()) == expected, f"{label} did not print the {shape.partitions} keys")
            timings.append(seconds)
        runs[label] = round(statistics.median(timings), 3)
    start = statistics.median(starts)
    sample = runs["AWS's sample"]
    # The command's own options count: the sample is serial by design, parallel segments are ours.
    ratio = min(runs["python -m ddbmodels distinct-keys"], runs["… --segments 4"]) / sample
    run.figures["command_line"] = {
        "shape": shape.label,
        "start_seconds_median": round(start, 3),
        "start_seconds": [round(x, 3) for x in starts],
        "import_seconds": round(import_us / 1e6, 3),
        "runs_seconds": runs,
        "ddbmodels_over_sample": round(ratio, 3),
        "goals_judged": run.args.time_goals,
    }
    if not run.args.time_goals:
        return
    bench.check(start <= STARTUP_GOAL_S, f"python -m ddbmodels started in {start:.2f} s (goal ≤ {STARTUP_GOAL_S} s)")
    bench.check(ratio <= CLI_GOAL, f"python -m ddbmodels took {ratio:.2f}× AWS's sample (goal ≤ {CLI_GOAL}×)")


def measure(run: bench.Run) -> None:
    run.figures.update(segments=run.args.segments, shapes=[])
    for shape in run.args.shape:
        bench_shape(run, shape)
    command_line(run, run.args.cli_shape)


COLUMNS = bench.columns(
    "method:s | segments:d | used=method_used:s | keys:d | @rcu | @req | @verdict | seconds:.2f | retries:d"
)


def chart(shapes: list[dict[str, Any]], path: Path) -> None:
    """One PNG: per shape and method (one segment), measured RCU beside DynamoDB's floor, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, measured, theoretical = [], [], []
    for shape in shapes:
        for row in shape["results"]:
            if row["segments"] == 1:
                labels.append(f"{shape['shape']}\n{row['method']}")
                measured.append(row["m_rcu"])
                theoretical.append(row["f_rcu"])
    positions = list(range(len(labels)))
    width = 0.4
    figure, axes = plt.subplots(figsize=(max(8, 1.1 * len(labels)), 5))
    bars = axes.bar([x - width / 2 for x in positions], measured, width, label="measured (ConsumedCapacity)")
    axes.bar_label(bars, fmt="%.1f", fontsize=7)
    bars = axes.bar([x + width / 2 for x in positions], theoretical, width, label="DynamoDB's floor")
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


def show(run: bench.Run) -> None:
    shapes = run.figures.get("shapes", [])
    for shape in shapes:
        print(
            f"\n{shape['shape']}: {shape['item_count']} items, {shape['table_size_bytes']:,} bytes by DynamoDB's "
            f"sizes ({shape['local_table_size_bytes']:,} by Local's TableSizeBytes); "
            f"index {shape['index_size_bytes']:,} B on DynamoDB ({shape['index_read_bytes']:,} read), "
            f"{shape['local_index_size_bytes']:,} on Local; filled in {shape['fill_seconds']:.1f} s"
        )
        print(bench.table(COLUMNS, shape["results"]))
        for auto in (row for row in shape["results"] if row["method"].startswith("auto")):
            probe = auto.get("probe")
            probed = f"probe: segment 0 of {probe['total_segments']}, {probe['rcu']} RCU" if probe else "no probe"
            print(
                f"{auto['method']} chose {auto['method_used']} ({auto.get('reason')}); estimates {auto['estimates']}; "
                f"{probed}; {auto.get('x_cheapest')}× the cheapest ({auto.get('cheapest')})"
            )
    cli = run.figures.get("command_line")
    if cli:
        print(
            f"\ncommand line on {cli['shape']}: python -m ddbmodels starts in {cli['start_seconds_median']:.2f} s "
            f"(median of {len(cli['start_seconds'])}; imports {cli['import_seconds']:.2f} s); whole runs: "
            + ", ".join(f"{label} {seconds:.2f} s" for label, seconds in cli["runs_seconds"].items())
            + f"; python -m ddbmodels / AWS's sample = {cli['ddbmodels_over_sample']:.3f}"
        )
        met = cli["start_seconds_median"] <= STARTUP_GOAL_S and cli["ddbmodels_over_sample"] <= CLI_GOAL
        judged = "judged" if cli["goals_judged"] else "not judged without --time-goals"
        goals = f"start ≤ {STARTUP_GOAL_S} s, ≤ {CLI_GOAL}× the sample"
        print(f"time goals ({goals}): {'met' if met else 'missed'} ({judged})")
    if shapes:
        bench.draw(chart, shapes, CHART, run.figures, str(CHART.relative_to(ROOT)))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    shapes = ", ".join(shape.label for shape in args.shape)
    return bench.run(
        "distinct_keys", args, measure, show, headline=f", shapes {shapes}, segments {{segments}}", tag="dk"
    )


if __name__ == "__main__":
    sys.exit(main())
