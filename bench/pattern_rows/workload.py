"""The workload's runner: it calls ddbmodels, counts the calls per row, adds up their floors, judges them."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from typing import Any

from ddbmodels import events
from ddbmodels.core import capacity
from ddbmodels.patterns import leaderboard
from devtools import bench
from devtools.bench import Cost
from pattern_rows.rows import BOARD_SHARDS, EVENT_SHARDS, ROWS, counted

TENANT, PROJECT = "bench-patterns", "PAT"
CUSTOMERS = ("bench-a", "bench-b")
AWARDED = 8  # issues 1..8 resolved and awarded: two per assignee (a first award, then a later one)
PAGE_SIZE = 25


def covering(names: Iterable[str], shard: Callable[[str], int], shards: int) -> list[str]:
    """The first names that fall into distinct shards, one per shard (crc32 suffixes: the same in every run).

    With something in every shard, no sharded read finds nothing: the floors need no Local difference.
    """
    chosen: dict[int, str] = {}
    for name in names:
        chosen.setdefault(shard(name), name)
        if len(chosen) == shards:
            return list(chosen.values())
    raise ValueError("no names for every shard")


ASSIGNEES = covering((f"dev{n}" for n in range(1, 100)), lambda u: leaderboard.shard_of(u, BOARD_SHARDS), BOARD_SHARDS)
STREAMS = covering(
    (f"{TENANT}#{PROJECT}#{n}" for n in range(1, 100)), lambda s: events.shard_of(s, EVENT_SHARDS), EVENT_SHARDS
)
# Patterns with more than one row: each of their rows is metered on its own as well.
SPLIT = {pattern for pattern, rows in counted(ROWS).items() if rows > 1}


def pattern_of(row: str) -> str:
    return row.split(" ", 1)[0]


class Workload:
    """Calls ddbmodels, counts them per row, adds up their floors, meters the variants on their own."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.parts: dict[str, list[Cost]] = {}  # floor, Local's difference, the named overhead
        self.variants: dict[str, capacity.CapacityMeter] = {}

    def __call__(self, row: str, fn: Callable[..., Any], *args: Any, basis: Any = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` as one call of ``row``; its floor from the result and ``basis``."""
        with capacity.measure() if pattern_of(row) in SPLIT else nullcontext() as meter:
            result = fn(*args, **kwargs)
        if isinstance(meter, capacity.CapacityMeter):
            self.variants.setdefault(row, capacity.CapacityMeter()).add(meter)
        self.calls[row] += 1
        spec = ROWS[row]
        parts = [spec.floor(result, basis), *(p[1](result, basis) if p else Cost() for p in (spec.local, spec.extra))]
        self.parts[row] = [a + b for a, b in zip(self.parts.get(row, [Cost()] * 3), parts, strict=True)]
        return result


def judge_rows(run: bench.Run, meter: capacity.CapacityMeter, work: Workload) -> list[dict[str, Any]]:
    """One verdict per row (in the order of ROWS), after checking the meter against the calls made."""
    check = bench.check
    check(capacity.UNTAGGED not in meter.by_pattern, f"untagged calls: {meter.by_pattern.get(capacity.UNTAGGED)}")
    made = Counter[str]()
    for row, calls in work.calls.items():
        made[pattern_of(row)] += calls
    metered = {name: totals.calls for name, totals in meter.by_pattern.items()}
    check(metered == dict(made), f"the meter counted {metered}, the bench made {dict(made)}")
    rows = []
    for row in (r for r in ROWS if r in work.calls):
        pattern, calls, spec = pattern_of(row), work.calls[row], ROWS[row]
        totals = work.variants[row].by_pattern[pattern] if row in work.variants else meter.by_pattern[pattern]
        check(totals.calls == calls, f"{row}: {totals.calls} calls metered, {calls} made")
        floor, local, extra = work.parts[row]
        verdict = run.judge(
            row,
            Cost.of(totals),
            floor,
            local=bench.Difference(spec.local[0], local) if spec.local and (local.units or local.requests) else None,
            extras=[bench.Difference(spec.extra[0], extra)] if spec.extra and (extra.units or extra.requests) else [],
            per=calls,
        )
        rows.append({"pattern": row, "calls": calls, "floor_why": spec.why, **verdict.cells()})
    for pattern in {pattern_of(r) for r in work.variants}:
        parts = [work.variants[r].by_pattern[pattern] for r in work.variants if pattern_of(r) == pattern]
        whole = meter.by_pattern[pattern]
        summed = (sum(p.rcu for p in parts), sum(p.wcu for p in parts), sum(p.requests for p in parts))
        check(
            all(math.isclose(a, b) for a, b in zip(summed, (whole.rcu, whole.wcu, whole.requests), strict=True)),
            f"{pattern}: its rows add up to {summed}, the meter has {whole.as_dict()}",
        )
    return rows
