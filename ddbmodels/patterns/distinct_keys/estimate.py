"""What each method would cost, from DescribeTable and (only when that cannot decide) a probe, and ``auto``'s pick."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.patterns.distinct_keys.methods import GSI, SCAN, SKIP_SCAN, Tally, skip_scan_segment
from ddbmodels.patterns.distinct_keys.segments import run_segments
from ddbmodels.patterns.distinct_keys.table import Key, TableInfo

READ_UNIT_BYTES = 4096
RCU_PER_UNIT = 0.5  # eventually consistent
# The probe skip-scans segment 0 of PROBE_SEGMENTS: about 1/20 of the table's collections, so what
# it reads is ≈ 1/20 (5 %) of skip-scan's cost, and it stops once it has seen enough to know that
# skip-scan would cost more than a scan — so it never reads more than ≈ 1/20 of a scan either.
PROBE_SEGMENTS = 20
MIN_PROBE_SEGMENTS = 10  # fewer would let the probe cost more than 10 % of the method it chooses


class _BudgetTally(Tally):
    """A Tally that stops its segment once ``enough(distinct keys so far)`` says so."""

    def __init__(self, enough: Callable[[int], bool]) -> None:
        super().__init__()
        self._enough = enough

    def add(self, keys: Iterable[Key], items: int) -> None:
        super().add(keys, items)
        if self._enough(len(self.keys)):
            self.stop.set()


@dataclass(frozen=True)
class Probe:
    """Segment ``segment`` of ``total_segments`` skip-scanned (perhaps stopped early): the collections it implies."""

    total_segments: int
    segment: int
    items: int
    distinct: int
    requests: int
    rcu: float
    retries: int
    stopped: bool  # stopped once skip-scan was known to cost more than a scan (distinct is then a lower bound)
    keys: frozenset[Key] = field(repr=False)
    meter: capacity.CapacityMeter = field(repr=False, compare=False)

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
            "stopped": self.stopped,
            "collections_estimate": self.collections,
        }


def probe_segments(scan_rcu: float, per_collection: float) -> int:
    """No DynamoDB call — T for the probe: 20, or fewer when one collection's read is over 1/20 of a scan."""
    return max(1, min(PROBE_SEGMENTS, math.floor(scan_rcu / per_collection)))


def probe(table: TableInfo, *, total_segments: int = PROBE_SEGMENTS, segment: int = 0) -> Probe:
    """Skip-scan of one segment of T (Limit-1 Scans) — 0.5 RCU per collection in it, at most ≈ a scan's RCU / T.

    Segments split the table by partition-key hash, so a collection lies in exactly one of
    them and distinct keys in the segment × T estimates the number of collections. The probe
    stops as soon as that estimate makes skip-scan dearer than a scan (TableSizeBytes), so a
    table of many small collections costs it ≈ 1/T of a scan, and one of few large collections
    ≈ 1/T of a skip-scan.
    """
    scan_rcu = _read_cost(table.size_bytes)
    per_collection = _read_units_per_item(table)
    tally = _BudgetTally(lambda distinct: distinct * total_segments * per_collection >= scan_rcu)
    run_segments(tally, skip_scan_segment, table, None, [segment], total_segments)
    return Probe(
        total_segments=total_segments,
        segment=segment,
        items=tally.items,
        distinct=len(tally.keys),
        requests=tally.scans,
        rcu=tally.meter.rcu,
        retries=tally.retries,
        stopped=tally.stop.is_set(),
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
    source: str | None = None  # where that number came from: "description", "index" or "probe"
    probe: Probe | None = None  # the probe, when there was one


def choose(table: TableInfo, index_name: str | None) -> Choice:
    """``auto``: the cheapest estimate — from DescribeTable alone when it can decide, else after a probe.

    DescribeTable (free; on AWS its ItemCount and TableSizeBytes are refreshed about every six
    hours, on DynamoDB Local they are live) decides without reading an item when:

    * the table has no sort key (every item is its own collection: scan), or is empty;
    * an index is named (its ItemCount is the number of collections);
    * a probe cannot pay for itself: a scan costs less than 10 collections' first reads (a table
      under ≈ 40 KB of small items), so even the probe's first request would be > 1/10 of a scan.

    Otherwise a probe skip-scans one segment of T (``probe_segments``: 20, fewer when one read is
    more than 1/20 of a scan), stopping as soon as it knows skip-scan would be dearer than a scan:
    ≈ 1/T (5–10 %) of the cheaper method's RCU, on top of it.
    """
    source: str | None = "description"
    collections: float | None = None
    found: Probe | None = None
    scan_rcu = _read_cost(table.size_bytes)
    per_collection = _read_units_per_item(table)
    if table.range_key is None:
        reason = "no sort key: every item is its own collection"
        source = None
    elif index_name is not None:
        collections, source = float(table.indexes[index_name].item_count), "index"
        reason = f"the index's ItemCount ({table.indexes[index_name].item_count}) is the number of collections"
    elif table.item_count == 0:
        reason = "DescribeTable: the table is empty"
    elif probe_segments(scan_rcu, per_collection) < MIN_PROBE_SEGMENTS:
        reason = (
            f"DescribeTable: a scan costs ≈ {scan_rcu:.1f} RCU, under {MIN_PROBE_SEGMENTS} collections' reads: "
            "a probe could not pay for itself"
        )
    else:
        found = probe(table, total_segments=probe_segments(scan_rcu, per_collection))
        collections, source = found.collections, "probe"
        reason = "a probe of one segment"
    estimates = estimate(table, collections=collections, index_name=index_name)
    chosen = cheapest(estimates)
    reason = f"cheapest estimate: {chosen} ≈ {estimates[chosen]:.1f} RCU ({reason})"
    return Choice(chosen, reason, estimates, collections, source, found)
