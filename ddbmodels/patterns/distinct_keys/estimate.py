"""What each method would cost, from DescribeTable and a probe, and which one ``auto`` picks."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.patterns.distinct_keys.methods import GSI, SCAN, SKIP_SCAN, Tally, scan_segment
from ddbmodels.patterns.distinct_keys.segments import check_segments, run_segments
from ddbmodels.patterns.distinct_keys.table import Key, TableInfo

READ_UNIT_BYTES = 4096
RCU_PER_UNIT = 0.5  # eventually consistent
PROBE_ITEMS_PER_SEGMENT = 200  # the probe's T = clamp(ItemCount // 200, 1, 1000)
PROBE_MAX_SEGMENTS = 1000


@dataclass(frozen=True)
class Probe:
    """One of ``total_segments`` segments scanned in full: its reads, and the collections it implies."""

    total_segments: int
    segment: int
    items: int
    distinct: int
    requests: int
    rcu: float
    retries: int
    keys: frozenset[Key] = field(repr=False)
    meter: capacity.CapacityMeter = field(repr=False, compare=False)

    @property
    def whole_table(self) -> bool:
        return self.total_segments == 1

    @property
    def collections(self) -> float:
        return float(self.distinct * self.total_segments)

    def as_dict(self) -> dict[str, Any]:
        return {
            "total_segments": self.total_segments,
            "segment": self.segment,
            "items": self.items,
            "distinct": self.distinct,
            "requests": self.requests,
            "rcu": round(self.rcu, 3),
            "retries": self.retries,
            "collections_estimate": self.collections,
        }


def probe_segments(item_count: int) -> int:
    """No DynamoDB call — T for the probe: about 200 items per segment, 1 ≤ T ≤ 1000."""
    return max(1, min(item_count // PROBE_ITEMS_PER_SEGMENT, PROBE_MAX_SEGMENTS))


def probe(table: TableInfo, *, total_segments: int | None = None, segment: int = 0) -> Probe:
    """Scan of one segment of T, projecting the partition key — ≈ TableSizeBytes / T / 4 KB × 0.5 RCU.

    Segments split the table by partition-key hash, so a collection lies in exactly one of
    them and distinct keys in the segment × T estimates the number of collections. T defaults
    to ``probe_segments(ItemCount)`` (about 200 items per segment); T = 1 is a full scan, whose
    keys are then the exact answer.
    """
    total = total_segments or probe_segments(table.item_count)
    check_segments(total)
    tally = Tally()
    run_segments(tally, scan_segment, table, None, [segment], total)
    return Probe(
        total_segments=total,
        segment=segment,
        items=tally.items,
        distinct=len(tally.keys),
        requests=tally.scans,
        rcu=tally.meter.rcu,
        retries=tally.retries,
        keys=frozenset(tally.keys),
        meter=tally.meter,
    )


def _read_units_per_item(table: TableInfo) -> float:
    """RCU of reading one average item alone (skip-scan reads each collection's first item)."""
    return _read_cost(table.size_bytes / table.item_count if table.item_count > 0 else 0)


def _read_cost(size_bytes: float) -> float:
    """RCU of reading ``size_bytes`` in one request: 0.5 per started 4 KB, at least 0.5."""
    return RCU_PER_UNIT * max(1, math.ceil(size_bytes / READ_UNIT_BYTES))


def estimate(table: TableInfo, *, collections: float | None = None, index_name: str | None = None) -> dict[str, float]:
    """No DynamoDB call: estimated RCU per applicable method, from DescribeTable's figures.

    scan = TableSizeBytes / 4 KB × 0.5; gsi = IndexSizeBytes / 4 KB × 0.5 (only when an index
    is named); skip-scan = collections × 0.5 per started 4 KB of an average item (only with a
    sort key and a known number of collections). Every method costs at least one request (0.5).
    """
    estimates = {SCAN: _read_cost(table.size_bytes)}
    if index_name is not None:
        estimates[GSI] = _read_cost(table.indexes[index_name].size_bytes)
    if table.range_key is not None and collections is not None:
        estimates[SKIP_SCAN] = max(collections * _read_units_per_item(table), RCU_PER_UNIT)
    return estimates


def cheapest(estimates: dict[str, float]) -> str:
    """No DynamoDB call — the method with the smallest estimate; ties go to scan, then gsi, then skip-scan."""
    order = {SCAN: 0, GSI: 1, SKIP_SCAN: 2}
    return min(estimates, key=lambda method: (estimates[method], order[method]))


@dataclass(frozen=True)
class Choice:
    """The method to run, and why; for ``auto`` also what the choice rested on."""

    method: str
    reason: str | None = None
    estimates: dict[str, float] | None = None  # estimated RCU per candidate method
    collections: float | None = None  # the number of collections skip-scan's estimate used
    source: str | None = None  # where that number came from: "probe", "index" or "probe (whole table)"
    probe: Probe | None = None  # the probe, when there was one


def choose(table: TableInfo, index_name: str | None) -> Choice:
    """``auto``: the cheapest estimate — free with an index (its ItemCount), else a probe of one segment of T.

    A table without a sort key has as many collections as items: skip-scan does not apply.
    """
    reason: str | None = None
    collections: float | None = None
    source: str | None = None
    found: Probe | None = None
    if table.range_key is None:
        reason = "no sort key: every item is its own collection"
    elif index_name is not None:
        collections, source = float(table.indexes[index_name].item_count), "index"
    elif table.item_count > 0:
        found = probe(table)
        collections = found.collections
        source = "probe (whole table)" if found.whole_table else "probe"
    estimates = estimate(table, collections=collections, index_name=index_name)
    chosen = cheapest(estimates)
    reason = reason or f"cheapest estimate: {chosen} ≈ {estimates[chosen]:.1f} RCU"
    return Choice(chosen, reason, estimates, collections, source, found)
