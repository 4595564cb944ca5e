"""Write sharding, calculated suffix against random: how evenly writes spread, what reading one item back costs.

A busy key ("everything of one day") is split into ``--shards`` keys ``<key>#1`` … ``#N``. The
suffix is either *calculated* from the item's id (``crc32(id) % N + 1``, ``ddbmodels.core.keys.
shard_suffix``, as the events' ``by_day`` index does) or *random* (any of the N on each write).
Two workloads write ``--writes`` items each, to a table of its own per layout:

* **unique**: every write is a new item (ids 1…W) — new events, new orders;
* **skewed**: ids drawn from a Zipf distribution over ``--ids`` ids (s = ``--zipf``), the same
  item written again and again — counters, a hot document. A calculated suffix sends every write
  of one id to the same shard; a random one spreads them, and leaves copies of the item in several
  shards ("copies found" per read): the reader must merge them, the writer can no longer update
  one item in place.

Balance: each layout's busiest shard's share of the writes against the even share 1/N ("× even").
Read one item back (``--reads`` ids): calculated — one GetItem of the shard its id names (DynamoDB's
floor 0.5 RCU, 1 request); random — a BatchGetItem of the item's key in every shard (N keys, one
request; DynamoDB charges each key looked up, found or not: N × 0.5 RCU).

Printed on stdout: two tables, the notes on the floors and, last, exactly one line of JSON. Exit 0
when the writes and reads are at their floors (or their difference is named) and the balance checks
hold — unique writes even within 1.3× in both layouts, skewed writes even within 1.3× with a random
suffix — 1 otherwise, 2 when refused (no DYNAMODB_ENDPOINT_URL).

    python -m devtools.services run -- .venv/bin/python bench/shard_suffixes.py
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels.core import batch, capacity, connection
from ddbmodels.core.keys import shard_suffix
from devtools import bench

KEY = "2026-11-23"
LAYOUTS = ("calculated", "random")
WORKLOADS = ("unique", "skewed")
EVEN_WITHIN = 1.3  # the busiest shard may take this many times the even share
LOCAL_MISSING_GET = "DynamoDB Local charges nothing for a key BatchGetItem does not find (DynamoDB: 0.5 RCU)"


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("shard_suffixes", __doc__)
    bench.count(parser, "--writes", 2000, "writes per workload and layout")
    bench.count(parser, "--shards", 10, "write shards of the busy key")
    bench.count(parser, "--ids", 500, "distinct ids of the skewed workload")
    bench.count(parser, "--reads", 50, "items read back per layout")
    parser.add_argument("--zipf", type=float, default=1.2, help="Zipf exponent of the skewed workload (default 1.2)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    # --quick: half the writes (each shard still ≈ 100 of the unique ones, the 1.3× balance check meaningful)
    return bench.quick_sizes(parser, parser.parse_args(argv), writes=1000, reads=20)


def zipf_ids(rng: random.Random, ids: int, s: float, count: int) -> list[int]:
    """``count`` ids from 1..ids, id k drawn with weight 1 / k^s."""
    weights = [1 / k**s for k in range(1, ids + 1)]
    return rng.choices(range(1, ids + 1), weights=weights, k=count)


def suffix(layout: str, item_id: str, shards: int, rng: random.Random) -> int:
    return shard_suffix(item_id, shards) if layout == "calculated" else rng.randint(1, shards)


def table_name(layout: str, workload: str) -> str:
    return connection.table_name(f"shards-{layout}-{workload}")


Stored = dict[str, dict[str, dict[str, Any]]]  # item id → shard key → the item as written


def write(
    run: bench.Run, layout: str, workload: str, ids: list[int], rng: random.Random
) -> tuple[dict[str, Any], Stored]:
    """The writes of one workload and layout, judged; the items as written (each id's copies, by shard)."""
    shards = run.args.shards
    name = table_name(layout, workload)
    bench.create_keyed_table(name, sort_type="S")
    per_shard: Counter[int] = Counter()
    items = []
    stored: Stored = {}
    for n in ids:
        item_id = f"item-{n}"
        shard = suffix(layout, item_id, shards, rng)
        per_shard[shard] += 1
        item = {"pk": {"S": f"{KEY}#{shard}"}, "sk": {"S": item_id}, "v": {"N": str(n)}}
        items.append(item)
        stored.setdefault(item_id, {})[item["pk"]["S"]] = item
    client = connection.client()
    with capacity.measure() as meter:
        if workload == "unique":  # new items: BatchWriteItem, 25 a request
            batch.batch_write(batch.put(name, item) for item in items)
        else:  # the same item again and again: one PutItem each (a batch may not hold one key twice)
            for item in items:
                client.put_item(TableName=name, Item=item, ReturnConsumedCapacity="TOTAL")
    writes = len(ids)
    requests = -(-writes // batch.BATCH_SIZE) if workload == "unique" else writes
    # 1 WCU per started KB of each item written (a PutItem over an item: the larger, the same item here)
    floor = bench.Cost(0, sum(bench.write_units(bench.item_size(item)) for item in items), requests)
    verdict = run.judge(f"write {workload}, {layout}", bench.Cost.of(meter), floor, per=writes)
    busiest = max(per_shard.values())
    row = {
        "workload": workload,
        "layout": layout,
        "writes": writes,
        "busiest": busiest,
        "quietest": min(per_shard.get(k, 0) for k in range(1, shards + 1)),
        "x_even": busiest / (writes / shards),
        **verdict.cells(),
    }
    return row, stored


def read_back(run: bench.Run, layout: str, workload: str, ids: list[int], stored: Stored) -> dict[str, Any]:
    """Each sampled id read back; the floor and Local's difference from the copies WRITTEN, decided before reading."""
    shards = run.args.shards
    name = table_name(layout, workload)
    client = connection.client()
    sample = sorted(set(ids))[: run.args.reads]
    keys = {
        f"item-{n}": (
            [f"{KEY}#{shard_suffix(f'item-{n}', shards)}"]
            if layout == "calculated"
            else [f"{KEY}#{k}" for k in range(1, shards + 1)]
        )
        for n in sample
    }
    # DynamoDB: each key looked up costs its own read, found or not (GetItem, or each key of a BatchGetItem).
    sizes = {i: [bench.item_size(stored[i][pk]) if pk in stored[i] else 0 for pk in pks] for i, pks in keys.items()}
    floor = bench.total(bench.Cost(bench.batch_get_units(listed), 0, 1) for listed in sizes.values())
    missing = sum(1 for listed in sizes.values() for size in listed if not size)
    on_local = run.target.settings.endpoint_url is not None
    local = bench.Difference(LOCAL_MISSING_GET, bench.Cost(-0.5 * missing)) if on_local and missing else None
    found: dict[str, set[str]] = {}
    with capacity.measure() as meter:
        for item_id, pks in keys.items():
            if layout == "calculated":
                key = {"pk": {"S": pks[0]}, "sk": {"S": item_id}}
                answer = client.get_item(TableName=name, Key=key, ReturnConsumedCapacity="TOTAL")
                found[item_id] = {answer["Item"]["pk"]["S"]} if "Item" in answer else set()
                continue
            request = {name: {"Keys": [{"pk": {"S": pk}, "sk": {"S": item_id}} for pk in pks]}}
            answer = client.batch_get_item(RequestItems=request, ReturnConsumedCapacity="TOTAL")
            bench.check(not answer.get("UnprocessedKeys"), f"{layout}: a BatchGetItem left keys unprocessed")
            found[item_id] = {i["pk"]["S"] for i in answer["Responses"].get(name, [])}
    for item_id, pks in keys.items():
        written = set(stored[item_id]) & set(pks)
        bench.check(found[item_id] == written, f"{layout} {item_id}: found {found[item_id]}, written {written}")
    reads = len(sample)
    verdict = run.judge(f"read one back, {workload}, {layout}", bench.Cost.of(meter), floor, local=local, per=reads)
    hits = sum(len(copies) for copies in found.values())
    return {"workload": workload, "layout": layout, "reads": reads, "copies": hits / reads, **verdict.cells()}


def measure(run: bench.Run) -> None:
    args = run.args
    rng = random.Random(args.seed)
    workloads = {
        "unique": list(range(1, args.writes + 1)),
        "skewed": zipf_ids(rng, args.ids, args.zipf, args.writes),
    }
    writes, reads = [], []
    for workload, ids in workloads.items():
        for layout in LAYOUTS:
            row, stored = write(run, layout, workload, ids, rng)
            writes.append(row)
            reads.append(read_back(run, layout, workload, ids, stored))
    run.figures.update(writes=writes, reads=reads, shards=args.shards, zipf=args.zipf)
    by = {(row["workload"], row["layout"]): row for row in writes}
    for layout in LAYOUTS:
        bench.check(by["unique", layout]["x_even"] <= EVEN_WITHIN, f"unique writes, {layout}: a shard takes too much")
    bench.check(by["skewed", "random"]["x_even"] <= EVEN_WITHIN, "skewed writes, random: a shard takes too much")


WRITE_COLUMNS = bench.columns(
    "workload:s | suffix=layout:s | writes:d | busiest shard=busiest:d | quietest=quietest:d | "
    "× even=x_even:.2f | @floors"
)
READ_COLUMNS = bench.columns("workload:s | suffix=layout:s | reads:d | copies found=copies:.2f | @floors")


def show(run: bench.Run) -> None:
    bench.show_table(None, WRITE_COLUMNS, run.figures.get("writes"))
    bench.show_table("", READ_COLUMNS, run.figures.get("reads"))


def main(argv: list[str] | None = None) -> int:
    headline = ", {writes} writes, {shards} shards, Zipf {zipf} over {ids} ids"
    return bench.run("shard_suffixes", parse_args(argv), measure, show, headline=headline)


if __name__ == "__main__":
    sys.exit(main())
