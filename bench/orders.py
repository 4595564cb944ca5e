"""Global order numbers and orders by time: throughput and capacity of both numbering modes, and shards.

Numbering: for each mode (``atomic``: UpdateItem ADD then PutItem; ``gapless``: consistent GetItem
then one TransactWriteItems conditioned on the counter's value) and each level of concurrent
writers (``--writers 1,4,16``, threads) a fresh counter numbers ``--orders`` orders spread over 8
customers. Each level is checked: numbers distinct, and exactly 1..N (in gapless mode a gap fails
the run; in atomic mode it is counted — nothing fails here, so there should be none). Beside the
measured RCU/WCU per order stands the floor for an order ≤ 1 KB with its two index entries:
atomic 0 RCU + 4 WCU (counter, order, by_time, by_number); gapless 1 RCU + 8 WCU (the same four
writes at two units each inside a transaction). DynamoDB Local reports no capacity for a
cancelled transaction, so lost races show as "cancelled/order", not in the WCU.

Shards: ``--range-orders`` orders spread over 30 days are written twice, once with 1 time shard
and once with ``--shards``, in two separate past months; then "last 7 days" and "latest 100" are
read from each: one Query per shard (``Limit 100`` for the latter, so N shards read up to N × 100
orders to keep 100), merged. The floor beside them is one Query of one key reading exactly the
orders returned.

Printed on stdout: two tables and, last, exactly one line of JSON. Exit status: 0 when every
check passed, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/orders.py
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/orders.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.core.errors import SequenceContention  # noqa: E402
from ddbmodels.orders import (  # noqa: E402
    OrderItem,
    order_place,
    orders_in_range,
    preset_since,
)
from devtools import bench  # noqa: E402

CUSTOMERS = 8
FLOOR = {"atomic": (0.0, 4.0), "gapless": (1.0, 8.0)}  # (RCU, WCU) per order ≤ 1 KB
WINDOWS = {1: datetime(2001, 2, 1, tzinfo=UTC), 0: datetime(2002, 2, 1, tzinfo=UTC)}  # 0 = --shards


class VerificationError(Exception):
    """A level handed out a duplicate number, or (gapless) not exactly 1..N."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/orders.py", description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=bench.int_list("writer counts"), default=[1, 4, 16], metavar="N,N,...")
    parser.add_argument("--modes", default="atomic,gapless", help="numbering modes to run (default: atomic,gapless)")
    parser.add_argument("--orders", type=bench.positive_int, default=400, help="orders per level (default: 400)")
    parser.add_argument("--shards", type=bench.positive_int, default=4, help="time shards to compare with 1")
    parser.add_argument("--range-orders", type=bench.positive_int, default=1000, help="orders per shard layout")
    parser.add_argument("--warmup", type=int, default=50, help="untimed orders first (default: 50)")
    bench.add_allow_aws(parser)
    args = parser.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    if not args.modes or any(m not in FLOOR for m in args.modes):
        parser.error(f"--modes must name atomic and/or gapless, got {','.join(args.modes)!r}")
    return args


def writer(mode: str, level: str, index: int, count: int, start: threading.Barrier) -> dict[str, Any]:
    """One thread: ``count`` orders one after the other, measured by this thread's own meter."""
    numbers: list[int] = []
    attempts = gave_up = 0
    latencies: list[float] = []
    with capacity.measure() as meter:
        start.wait()
        for i in range(count):
            begun = time.perf_counter()
            while True:
                try:
                    claimed = order_place(
                        customer=f"bench-{level}-{(index + i) % CUSTOMERS}",
                        product="seats",
                        quantity=1 + i % 9,
                        delivery="standard",
                        placed_by="bench",
                        mode=mode,
                        counter=f"bench-{level}",
                    )
                except SequenceContention as error:
                    gave_up += 1
                    attempts += int(error.context.get("attempts", 0))  # type: ignore[call-overload]
                    continue
                break
            latencies.append(time.perf_counter() - begun)
            numbers.append(claimed.number)
            attempts += claimed.attempts
    return {"meter": meter, "numbers": numbers, "attempts": attempts, "gave_up": gave_up, "latencies": latencies}


def run_level(mode: str, writers: int, orders: int) -> dict[str, Any]:
    level = f"{mode}-{writers}"
    shares = [orders // writers + (1 if i < orders % writers else 0) for i in range(writers)]
    start = threading.Barrier(writers + 1)
    with ThreadPoolExecutor(max_workers=writers, thread_name_prefix="writer") as pool:
        futures = [pool.submit(writer, mode, level, i, share, start) for i, share in enumerate(shares)]
        start.wait()
        began = time.perf_counter()
        results = [f.result() for f in futures]
        seconds = time.perf_counter() - began
    meter = capacity.CapacityMeter()
    for result in results:
        meter.add(result["meter"])
    numbers = sorted(n for r in results for n in r["numbers"])
    stored = sorted(
        int(o.number) for c in range(CUSTOMERS) for o in OrderItem.query(f"bench-{level}-{c}", consistent_read=True)
    )
    if len(set(numbers)) != len(numbers) or stored != numbers:
        raise VerificationError(f"{level}: duplicate numbers, or the table does not hold what writers were told")
    gaps = len(set(range(1, numbers[-1] + 1)) - set(numbers))
    if mode == "gapless" and numbers != list(range(1, orders + 1)):
        raise VerificationError(f"{level}: expected exactly 1..{orders}, {gaps} gaps")
    latencies = sorted(s for r in results for s in r["latencies"])
    lost = sum(r["attempts"] for r in results) - orders
    return {
        "mode": mode,
        "writers": writers,
        "orders": orders,
        "seconds": round(seconds, 3),
        "orders_per_s": round(orders / seconds, 1),
        "rcu_per_order": round(meter.rcu / orders, 4),
        "min_rcu": FLOOR[mode][0],
        "wcu_per_order": round(meter.wcu / orders, 4),
        "min_wcu": FLOOR[mode][1],
        "cancelled_per_order": round(meter.conditional_failures / orders, 4),
        "lost_races_per_order": round(lost / orders, 4),
        "gave_up": sum(r["gave_up"] for r in results),
        "gaps": gaps,
        "p50_ms": round(1000 * statistics.median(latencies), 2),
        "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 2),
        "totals": meter.as_dict(),
    }


def load_window(shards: int, end: datetime, count: int) -> int:
    """``count`` orders evenly over the 30 days before ``end``, written with ``shards`` time shards."""
    step = timedelta(days=30) / count
    counter = f"bench-range-{shards}-{end:%Y}"

    def place(i: int) -> int:
        when = end - step * (i + 1)
        return order_place(
            customer=f"bench-r{i % CUSTOMERS}",
            product="storage",
            quantity=10,
            delivery="standard",
            placed_by="bench",
            counter=counter,
            shards=shards,
            when=when,
        ).number

    with ThreadPoolExecutor(max_workers=16) as pool:
        return len(list(pool.map(place, range(count))))


def item_bytes(order: OrderItem) -> int:
    """DynamoDB's size of an order: attribute names + values (numbers ≈ digits / 2 + 1)."""
    size = 0
    for name, value in order.serialize().items():
        (kind, raw), *_ = value.items()
        size += len(name) + (len(raw.encode()) if kind == "S" else (len(raw) + 1) // 2 + 1)
    return size


def range_rows(shards: int) -> list[dict[str, Any]]:
    """ "Last 7 days" and "latest 100" (of the window's 30 days) with 1 shard and with ``shards``."""
    rows = []
    for layout in (1, shards):
        end = WINDOWS[1 if layout == 1 else 0]
        for query, since, limit in (
            ("last 7 days", preset_since("7d", end), None),
            ("latest 100", end - timedelta(days=30), 100),
        ):
            with capacity.measure() as meter:
                found = orders_in_range(since=since, until=end, limit=limit, shards=layout)
            floor = 0.5 * math.ceil(sum(item_bytes(o) for o in found) / 4096) if found else 0.5
            rows.append(
                {
                    "query": query,
                    "shards": layout,
                    "orders": len(found),
                    "requests": meter.requests,
                    "rcu": meter.rcu,
                    "min_rcu_one_key": floor,
                }
            )
    return rows


LEVEL_COLUMNS: list[bench.Column] = [
    ("mode", "mode", "s"),
    ("writers", "writers", "d"),
    ("orders/s", "orders_per_s", ".1f"),
    ("RCU/order", "rcu_per_order", ".3f"),
    ("min RCU", "min_rcu", ".0f"),
    ("WCU/order", "wcu_per_order", ".3f"),
    ("min WCU", "min_wcu", ".0f"),
    ("lost races/order", "lost_races_per_order", ".3f"),
    ("gave up", "gave_up", "d"),
    ("gaps", "gaps", "d"),
    ("p50 ms", "p50_ms", ".1f"),
    ("p99 ms", "p99_ms", ".1f"),
]
RANGE_COLUMNS: list[bench.Column] = [
    ("query", "query", "s"),
    ("shards", "shards", "d"),
    ("orders", "orders", "d"),
    ("requests", "requests", "d"),
    ("RCU", "rcu", ".1f"),
    ("min RCU (one key)", "min_rcu_one_key", ".1f"),
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/orders.py", allow_aws=args.allow_aws)
    if target is None:
        return 2
    for model in connection.registered().values():
        model.Meta.max_pool_connections = max(16, *args.writers)
    print(f"orders: {target.endpoint}, tables {target.prefix}*, {args.orders} orders per level, writers {args.writers}")
    levels: list[dict[str, Any]] = []
    ranges: list[dict[str, Any]] = []
    error: str | None = None
    try:
        tables.create_all()
        for i in range(max(args.warmup, 0)):
            order_place(
                customer="bench-warmup",
                product="seats",
                quantity=1,
                delivery="standard",
                placed_by="bench",
                mode=args.modes[i % len(args.modes)],
                counter="bench-warmup",
            )
        for mode in args.modes:
            for writers in args.writers:
                levels.append(run_level(mode, writers, args.orders))
        for layout in (1, args.shards):
            load_window(layout, WINDOWS[1 if layout == 1 else 0], args.range_orders)
        ranges = range_rows(args.shards)
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(VerificationError, SequenceContention))
    finally:
        try:
            deleted = tables.delete_all()
            print(f"deleted {len(deleted)} table(s)", file=sys.stderr)
        except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
            print(f"warning: could not delete the tables {target.prefix}*: {failure}", file=sys.stderr)
    if levels:
        print(bench.table(LEVEL_COLUMNS, levels))
    if ranges:
        print()
        print(bench.table(RANGE_COLUMNS, ranges))
    figures = {"orders_per_level": args.orders, "floor_per_order": FLOOR, "levels": levels, "ranges": ranges}
    return bench.finish("orders", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
