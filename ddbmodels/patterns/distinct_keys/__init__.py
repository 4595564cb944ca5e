"""Distinct partition keys of any DynamoDB table, by the cheapest of three methods.

An *item collection* is the set of items that share a partition key; listing the collections
of a table means listing its distinct partition keys. Three ways, with their read cost
(eventually consistent reads: 0.5 RCU per 4 KB read, rounded up per request):

``scan``
    Scan the whole table, projecting only the partition key, and deduplicate. Cost: the size of
    the table, ``TableSizeBytes / 4 KB × 0.5`` — the projection saves bandwidth, not capacity.
    Cheapest when collections are small (a few KB each); the only method for hash-only tables,
    where every item is its own collection.
``gsi``
    Scan a sparse KEYS_ONLY index fed by one static item per collection (ours: the
    ``projects`` index of the issues table). Cost: the size of the index,
    the index entries' keys / 4 KB × 0.5 — a few dozen bytes per collection
    (``IndexSizeBytes`` also counts 100 bytes of overhead per entry, which reads are not charged for;
    DynamoDB Local sizes an entry like its whole base item). Needs the index and the
    discipline of one static item per collection; only the caller can vouch for the latter.
``skip-scan``
    Scan with ``Limit 1``; then take LastEvaluatedKey, replace its sort key with the largest
    value its type can hold, and scan again from there: the next Scan starts at the next
    collection. Cost: 0.5 RCU per collection while a collection's first item is ≤ 4 KB, plus 0.5 RCU
    per segment for the last Scan, which finds nothing (DynamoDB Local charges it 0). Needs
    nothing prepared in advance; cheapest without an index once collections exceed ~4 KB.

``auto`` reads DescribeTable (free) and picks the cheapest by estimated RCU. The description
decides alone when it can: no sort key or an empty table (scan), an index named (its ItemCount
is the number of collections), or a table so small (a scan under 10 collections' first reads,
≈ 5 RCU of small items) that no probe could pay for itself (scan). Otherwise a probe skip-scans
ONE of T parallel-scan segments (T = 20, down to 10 when one read is more than 1/20 of a scan;
segments split by partition-key hash, so a collection never spans two): distinct keys in it × T
≈ collections; it stops as soon as that makes skip-scan dearer than a scan, so it costs ≈ 1/T
of the cheaper method (5–10 %). On AWS, ItemCount and the size figures are refreshed about
every six hours; on DynamoDB Local they are live.

Scan and skip-scan (and gsi) run ``segments`` parallel segments (Segment/TotalSegments) on
threads; segments partition the table by partition key, so their union is the serial answer.
Capacity is DynamoDB's own ConsumedCapacity (``ddbmodels.capacity``), never an estimate; the
client is ``connection.client()`` (botocore "standard" retries: throttling and 5xx back off
with jitter, a bounded number of times), and the retries it made are counted.

Nothing here imports Django; any table on the endpoint works, not only ours.
"""

from __future__ import annotations

import time

from ddbmodels.core import capacity
from ddbmodels.patterns.distinct_keys.estimate import Choice, choose
from ddbmodels.patterns.distinct_keys.methods import AUTO, GSI, METHODS, SCAN, SKIP_SCAN, ProgressCallback
from ddbmodels.patterns.distinct_keys.report import Report, Result
from ddbmodels.patterns.distinct_keys.segments import (
    MAX_TOTAL_SEGMENTS,
    check_index,
    check_segments,
    list_collections,
)
from ddbmodels.patterns.distinct_keys.table import (
    MAX_B,
    MAX_N,
    MAX_S,
    MAX_VALUE,
    BadRequest,
    DistinctKeysError,
    Key,
    ReadFailed,
    TableInfo,
    TableNotFound,
    describe,
)

__all__ = [
    "AUTO",
    "GSI",
    "MAX_B",
    "MAX_N",
    "MAX_S",
    "MAX_TOTAL_SEGMENTS",
    "MAX_VALUE",
    "METHODS",
    "PROGRESS_INTERVAL_S",
    "SCAN",
    "SKIP_SCAN",
    "BadRequest",
    "DistinctKeysError",
    "Key",
    "ReadFailed",
    "Result",
    "TableInfo",
    "TableNotFound",
    "describe",
    "distinct_keys",
    "gsi_keys",
    "scan_keys",
    "segment_keys",
    "skip_scan_keys",
]

# Progress reports at most this often (seconds). It lives here, on the package, because the entry
# points below read it at each call: setting ``distinct_keys.PROGRESS_INTERVAL_S`` takes effect.
PROGRESS_INTERVAL_S = 0.1


def distinct_keys(
    table_name: str,
    method: str = AUTO,
    *,
    segments: int = 1,
    index_name: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """DescribeTable (free), then Scans by ``method`` — the method's RCU (auto: + its probe, if any, 5–10 %).

    scan ≈ TableSizeBytes / 4 KB × 0.5, gsi ≈ index keys / 4 KB × 0.5, skip-scan = 0.5 per
    collection while first items are ≤ 4 KB; the report holds the measured figures.

    ``auto`` picks the cheapest estimate; when DescribeTable cannot decide it first probes one
    segment of T = 10–20 (≈ 1/T of the cheaper method, included in the report's RCU).
    ``segments`` > 1 runs that many parallel segments on threads. ``on_progress(keys_so_far,
    requests_so_far)`` is called from any thread, one call at a time, at most every 0.1 s and
    once at the end.
    """
    if method not in METHODS:
        raise BadRequest(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    check_segments(segments)
    began = time.perf_counter()
    with capacity.measure() as describe_meter, capacity.access_pattern("distinct_keys.describe"):
        table = describe(table_name)
    # Only gsi and auto use an index; scan and skip-scan read the table itself.
    index_name = check_index(table, index_name) if method == GSI or (method == AUTO and index_name) else None

    with capacity.access_pattern("distinct_keys.probe"):
        choice = choose(table, index_name) if method == AUTO else Choice(method)
    found = choice.probe
    listing = list_collections(
        table,
        choice.method,
        segments=segments,
        index_name=index_name if choice.method == GSI else None,
        on_progress=on_progress,
        progress_interval=PROGRESS_INTERVAL_S,
        request_offset=found.requests if found is not None else 0,
    )
    reason = listing.reason or choice.reason

    meter = capacity.CapacityMeter()
    meter.add(describe_meter)
    if found is not None:
        meter.add(found.meter)
    meter.add(listing.tally.meter)
    keys = sorted(listing.keys)  # type: ignore[type-var]
    report = Report(
        table=table.name,
        method=listing.method,
        requested_method=method,
        segments=listing.segments,
        segment=None,
        index_name=index_name,
        distinct_keys=len(keys),
        requests=meter.requests,
        rcu=meter.rcu,
        retries=listing.tally.retries + (found.retries if found is not None else 0),
        seconds=time.perf_counter() - began,
        by_operation=dict(meter.by_operation),
        estimates=choice.estimates,
        collections_estimate=choice.collections,
        collections_source=choice.source,
        probe=found.as_dict() if found is not None else None,
        reason=reason,
    )
    return Result(keys=keys, report=report)


def scan_keys(table_name: str, *, segments: int = 1, on_progress: ProgressCallback | None = None) -> Result:
    """Scan projecting the partition key, deduplicated — TableSizeBytes / 4 KB × 0.5 RCU."""
    return distinct_keys(table_name, SCAN, segments=segments, on_progress=on_progress)


def gsi_keys(
    table_name: str, index_name: str, *, segments: int = 1, on_progress: ProgressCallback | None = None
) -> Result:
    """Scan of a sparse KEYS_ONLY index, one item per collection — its keys / 4 KB × 0.5 RCU.

    Returns the base table's partition keys found in the index: complete only if every
    collection has its static item.
    """
    return distinct_keys(table_name, GSI, segments=segments, index_name=index_name, on_progress=on_progress)


def skip_scan_keys(table_name: str, *, segments: int = 1, on_progress: ProgressCallback | None = None) -> Result:
    """Scan Limit 1 per collection, restarting past its largest sort key — 0.5 RCU per collection (+0.5 per segment).

    (While a collection's first item is ≤ 4 KB; plus one last Scan per segment that finds the
    end.) A table without a sort key is listed by a plain scan instead (report.method says so).
    """
    return distinct_keys(table_name, SKIP_SCAN, segments=segments, on_progress=on_progress)


def segment_keys(
    table_name: str,
    method: str = SCAN,
    *,
    segment: int,
    total_segments: int,
    index_name: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """DescribeTable, then the Scans of ONE segment of ``total_segments`` — about 1/T of the method's RCU.

    For spreading a listing over processes or machines: segments split the table by
    partition-key hash, so each key is in exactly one segment and the union over segments
    0 … T−1 is the full answer. ``method`` is scan, gsi or skip-scan (not auto).
    """
    if method not in (SCAN, GSI, SKIP_SCAN):
        raise BadRequest(f"method must be scan, gsi or skip-scan for one segment, got {method!r}")
    check_segments(total_segments)
    if not isinstance(segment, int) or isinstance(segment, bool) or not 0 <= segment < total_segments:
        raise BadRequest(f"segment must be from 0 to {total_segments - 1}, got {segment!r}")
    began = time.perf_counter()
    with capacity.measure() as describe_meter, capacity.access_pattern("distinct_keys.describe"):
        table = describe(table_name)
    index_name = check_index(table, index_name) if method == GSI else None
    listing = list_collections(
        table,
        method,
        segments=total_segments,
        index_name=index_name,
        on_progress=on_progress,
        progress_interval=PROGRESS_INTERVAL_S,
        only_segment=segment,
    )
    meter = capacity.CapacityMeter()
    meter.add(describe_meter)
    meter.add(listing.tally.meter)
    keys = sorted(listing.keys)  # type: ignore[type-var]
    report = Report(
        table=table.name,
        method=listing.method,
        requested_method=method,
        segments=total_segments,
        segment=segment,
        index_name=index_name,
        distinct_keys=len(keys),
        requests=meter.requests,
        rcu=meter.rcu,
        retries=listing.tally.retries,
        seconds=time.perf_counter() - began,
        by_operation=dict(meter.by_operation),
        reason=listing.reason,
    )
    return Result(keys=keys, report=report)
