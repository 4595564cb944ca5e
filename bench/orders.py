"""Global order numbers and orders by time: throughput and capacity of both numbering modes, and shards.

Numbering: for each mode (``atomic``: UpdateItem ADD then PutItem; ``gapless``: consistent GetItem
then one TransactWriteItems conditioned on the counter's value) and each level of concurrent
writers (``--writers 1,4,16``, threads) a fresh counter numbers ``--orders`` orders spread over 8
customers. Each level is checked: numbers distinct, and exactly 1..N (in gapless mode a gap fails
the run; in atomic mode it is counted — nothing fails here, so there should be none).

DynamoDB's floor per order, worked out from the orders as stored (read back unmetered: the order, its
``by_time`` entry of all its attributes, its keys-only ``by_number`` entry, the counter item at its
number), here ≤ 1 KB with its two index entries (``by_time``, ``by_number``): atomic
0 RCU + 4 WCU (counter, order, two entries at 1 WCU each), 2 requests; gapless 1 RCU + 6 WCU (the
counter and the order at 2 WCU each inside the transaction, the two entries at 1 WCU each), 2
requests. DynamoDB Local charges the two index entries of the transaction twice as well: its
gapless floor is 8 WCU. Both are printed; the ratio uses Local's. A lost gapless race adds one
consistent GetItem (1 RCU) and a cancelled transaction, which Local reports without capacity
(the pricing rules applied here do not price a cancelled transaction; it is counted, "cancelled").
A cancellation after which the writer must read its own order back (the order's Put refused or in
conflict, or no answer at all: was it this writer's commit?) adds one more consistent GetItem; the
bench counts both from the transactions' answers (botocore hooks), not from the code's report.

Shards: ``--range-orders`` orders spread over 30 days are written twice, once with 1 time shard
and once with ``--shards``, in two separate past months; then "last 7 days" and "latest 100" are
read from each: one Query per shard (``Limit 100`` for the latter), merged. DynamoDB's floor is
one Query per shard, each charged for the orders it contributes (≥ 0.5 RCU, even when it finds
none: Local charges an empty one 0); a shard reading more than it contributes (up to 100 orders
to keep 100 overall) is the named difference. "min one key" is the floor with a single shard.

Printed on stdout: two tables, the notes on the floors and, last, exactly one line of JSON. Exit
status: 0 when every check passed and every figure is its floor or explained, 1 when not, 2 when
refused.

    python -m devtools.services run -- .venv/bin/python bench/orders.py
"""

from __future__ import annotations

import sys
import threading
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from botocore import handlers

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.errors import SequenceContention
from ddbmodels.core.keys import time_key
from ddbmodels.core.threads import map_in_threads
from ddbmodels.orders import OrderItem, order_place, orders_in_range, preset_since, shard_key
from devtools import bench

CUSTOMERS = 8
MODES = ("atomic", "gapless")
LOCAL = {"gapless": bench.Difference(f"{bench.LOCAL_TRANSACT_INDEX} (by_time, by_number)", bench.Cost())}
LOST_RACE = (
    "each lost race: one more consistent GetItem of the counter (1 RCU) and a cancelled TransactWriteItems "
    "(no capacity on Local; not priced here)"
)
OWN_CHECK = (
    "each cancellation that may hide this writer's own commit (the order's own Put refused or in conflict, a "
    "TransactionConflictException, or no answer at all): the order read back, a consistent GetItem (1 RCU)"
)
SEATS = {"product": "seats", "delivery": "standard", "placed_by": "bench"}


class Answers:
    """The gapless transactions' failed answers, as botocore saw them (the bench's count, not the code's).

    ``lost``: every cancelled or conflicting transaction (a lost race); ``own``: those after which the
    writer must read its order back — the order's Put (reason 0) not ``None``, a conflict without
    reasons, or an exception with no answer at all.
    """

    def __init__(self) -> None:
        self.lost = self.own = 0
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self.lost = self.own = 0

    def after(self, parsed: dict[str, Any], **_: Any) -> None:
        code = (parsed.get("Error") or {}).get("Code")
        if code not in ("TransactionCanceledException", "TransactionConflictException"):
            return
        reasons = parsed.get("CancellationReasons") or []
        with self._lock:
            self.lost += 1
            self.own += not reasons or reasons[0].get("Code") not in (None, "None")

    def failed(self, **_: Any) -> None:
        with self._lock:
            self.lost += 1
            self.own += 1


ANSWERS = Answers()
# Every botocore session created from now on (PynamoDB makes one per thread) calls these hooks.
handlers.BUILTIN_HANDLERS.append(("after-call.dynamodb.TransactWriteItems", ANSWERS.after))
handlers.BUILTIN_HANDLERS.append(("after-call-error.dynamodb.TransactWriteItems", ANSWERS.failed))
WINDOWS = {1: datetime(2001, 2, 1, tzinfo=UTC), 0: datetime(2002, 2, 1, tzinfo=UTC)}  # 0 = --shards


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("orders", __doc__)
    bench.levels(parser, "--writers", [1, 4, 16], "concurrent writers (threads) per level")
    parser.add_argument("--modes", default="atomic,gapless", help="numbering modes to run (default: atomic,gapless)")
    bench.count(parser, "--orders", 400, "orders per level")
    bench.count(parser, "--shards", 4, "time shards to compare with 1")
    bench.count(parser, "--range-orders", 1000, "orders per shard layout")
    bench.count(parser, "--warmup", 50, "untimed orders first")
    args = parser.parse_args(argv)
    # --quick: 4 writers still lose races (the gapless figure's explanation is exercised), in a few seconds
    bench.quick_sizes(parser, args, writers=[1, 4], orders=120, range_orders=300, warmup=20)
    args.modes = [m for m in args.modes.split(",") if m]
    if not args.modes or any(m not in MODES for m in args.modes):
        parser.error(f"--modes must name atomic and/or gapless, got {','.join(args.modes)!r}")
    return args


def place(customer: str, counter: str, *, mode: str = "atomic", shards: int = 4, when: datetime | None = None) -> Any:
    quantity = 1 + len(customer) % 9
    return order_place(
        customer=customer, quantity=quantity, mode=mode, counter=counter, shards=shards, when=when, **SEATS
    )


def run_level(run: bench.Run, mode: str, writers: int, orders: int) -> dict[str, Any]:
    level = f"{mode}-{writers}"
    ANSWERS.reset()  # this level's answers only
    got = bench.contend(writers, orders, lambda w, i: place(f"bench-{level}-{(w + i) % CUSTOMERS}", level, mode=mode))
    placed = bench.unmetered(
        lambda: [o for c in range(CUSTOMERS) for o in OrderItem.query(f"bench-{level}-{c}", consistent_read=True)]
    )
    stored = sorted(int(o.number) for o in placed)
    numbers = got.numbers
    bench.check(len(set(numbers)) == len(numbers) and stored == numbers, f"{level}: duplicates, or not what was told")
    gaps = len(set(range(1, numbers[-1] + 1)) - set(numbers))
    bench.check(mode != "gapless" or numbers == list(range(1, orders + 1)), f"{level}: not 1..{orders}, {gaps} gaps")
    # Lost races as the bench saw them (failed transaction answers), which must be the attempts the code told.
    cancelled, own = ANSWERS.lost, ANSWERS.own
    bench.check(cancelled == got.lost, f"{level}: {got.lost} lost races told, {cancelled} failed transactions seen")
    floor, local = floors(mode, level, placed)
    race = bench.Cost(bench.read_units(bench.item_size(counter_item(level, orders)), consistent=True), 0, 2)
    verdict = run.judge(
        f"{mode}, {writers} writers",
        bench.Cost.of(got.meter),
        floor,
        local=bench.Difference(LOCAL[mode].why, local) if mode in LOCAL else None,
        extras=[
            bench.Difference(LOST_RACE, race.times(cancelled)),
            *([bench.Difference(OWN_CHECK, bench.Cost(own, 0, own))] if own else []),
        ],
        per=orders,
    )
    return {"mode": mode, "writers": writers, "gaps": gaps, "read_back": own, **got.figures(), **verdict.cells()}


def counter_item(name: str, value: int) -> dict[str, Any]:
    """The counter's item holding ``value``, as DynamoDB stores it."""
    return {"pk": {"S": name}, "v": {"N": str(value)}}


def floors(mode: str, counter: str, placed: list[OrderItem]) -> tuple[bench.Cost, bench.Cost]:
    """DynamoDB's floor of placing these orders, and Local's difference, from the items as stored (read back).

    Per order: the order (its size), its ``by_time`` entry (projection ALL: the order's size) and its
    ``by_number`` entry (keys only: ``n``, ``c``, ``t``), the counter at the order's number. atomic: each
    written once; gapless: a consistent read of the counter at the number before, the counter and the order
    twice (a transaction), the entries once — twice on DynamoDB Local.
    """
    floor, local = bench.Cost(), bench.Cost()
    for order in placed:
        item, number = order.serialize(), int(order.number)
        keys = bench.write_units(bench.item_size({name: item[name] for name in ("n", "c", "t")}))
        entries = bench.write_units(bench.item_size(item)) + keys
        writes = bench.write_units(bench.item_size(counter_item(counter, number))) + bench.write_units(
            bench.item_size(item)
        )
        if mode == "atomic":
            floor += bench.Cost(0, writes + entries, 2)
        else:
            read = bench.read_units(bench.item_size(counter_item(counter, number - 1)), consistent=True)
            floor += bench.Cost(read, 2 * writes + entries, 2)
            local += bench.Cost(0, entries)
    return floor, local


def load_window(shards: int, end: datetime, count: int) -> list[OrderItem]:
    """``count`` orders evenly over the 30 days before ``end``, written with ``shards`` time shards."""
    step = timedelta(days=30) / count
    counter = f"bench-range-{shards}-{end:%Y}"
    placed = map_in_threads(
        lambda i: place(f"bench-r{i % CUSTOMERS}", counter, shards=shards, when=end - step * (i + 1)).item,
        range(count),
        workers=16,
    )
    return list(placed)


def shard_reads(placed: list[OrderItem], shards: int, since: datetime, end: datetime, limit: int | None) -> Any:
    """What each shard's Query reads (its first ``limit`` orders in the window) and what the merge keeps."""
    low, high = time_key(since), time_key(end)
    by_shard: dict[str, list[OrderItem]] = defaultdict(list)
    for order in sorted(placed, key=lambda o: str(o.placed), reverse=True):  # newest first
        if low <= str(order.placed) < high:
            by_shard[str(order.time_shard)].append(order)
    read = {key: by_shard[key][:limit] for key in (shard_key(n, shards) for n in range(shards))}
    kept = sorted((o for orders in read.values() for o in orders), key=lambda o: str(o.placed), reverse=True)
    return read, kept[:limit]


def range_rows(run: bench.Run, shards: int, windows: dict[int, list[OrderItem]]) -> list[dict[str, Any]]:
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
            read, kept = shard_reads(windows[layout], layout, since, end, limit)
            bench.check(
                [o.placed for o in found] == [o.placed for o in kept], f"{query}, {layout} shard(s): wrong orders"
            )
            kept_keys = {str(o.placed) for o in kept}
            floor = bench.total(
                bench.Cost(bench.read_units(bench.model_size(o for o in orders if str(o.placed) in kept_keys)), 0, 1)
                for orders in read.values()
            )
            actual = bench.total(
                bench.Cost(bench.read_units(bench.model_size(orders)), 0, 1) for orders in read.values()
            )
            empty = sum(1 for orders in read.values() if not orders)
            verdict = run.judge(
                f"{query}, {layout} shard(s)",
                bench.Cost.of(meter),
                floor,
                local=bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * empty)) if empty else None,
                extras=[
                    bench.Difference(
                        f"each shard reads up to {limit} orders to keep {limit} overall",
                        bench.Cost(actual.rcu - floor.rcu),
                    )
                ],
            )
            one_key = bench.read_units(bench.model_size(found))
            rows.append(
                {"query": query, "shards": layout, "orders": len(found), "min_rcu_one_key": one_key, **verdict.cells()}
            )
    return rows


def measure(run: bench.Run) -> None:
    args = run.args
    for model in connection.registered().values():
        model.Meta.max_pool_connections = max(16, *args.writers)
    tables.create_all()
    for i in range(args.warmup):
        place("bench-warmup", "bench-warmup", mode=args.modes[i % len(args.modes)])
    run.figures.update(orders_per_level=args.orders, levels=[])
    for mode in args.modes:
        for writers in args.writers:
            run.figures["levels"].append(run_level(run, mode, writers, args.orders))
    windows = {
        layout: load_window(layout, WINDOWS[1 if layout == 1 else 0], args.range_orders) for layout in (1, args.shards)
    }
    run.figures["ranges"] = range_rows(run, args.shards, windows)


LEVEL_COLUMNS = bench.columns(
    "mode:s | writers:d | orders/s=per_s:.1f | @floors | lost races/order=lost_races_per:.3f | "
    "cancelled/order=refused_per:.3f | read back=read_back:d | gave up=gave_up:d | gaps:d | "
    "p50 ms=p50_ms:.1f | p99 ms=p99_ms:.1f"
)
RANGE_COLUMNS = bench.columns(
    "query:s | shards:d | orders:d | @rcu | @req | @verdict | min RCU one key=min_rcu_one_key:.1f"
)


def show(run: bench.Run) -> None:
    bench.show_table(None, LEVEL_COLUMNS, run.figures.get("levels"))
    bench.show_table("", RANGE_COLUMNS, run.figures.get("ranges"))


def main(argv: list[str] | None = None) -> int:
    headline = ", {orders} orders per level, writers {writers}"
    return bench.run("orders", parse_args(argv), measure, show, headline=headline, expected=(SequenceContention,))


if __name__ == "__main__":
    sys.exit(main())
