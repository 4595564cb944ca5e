"""Distinct partition keys of any DynamoDB table, by the cheapest of three methods (seed 000).

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
    ``IndexSizeBytes / 4 KB × 0.5`` — a few dozen bytes per collection. Needs the index and the
    discipline of one static item per collection; only the caller can vouch for the latter.
``skip-scan``
    Scan with ``Limit 1``; then take LastEvaluatedKey, replace its sort key with the largest
    value its type can hold, and scan again from there: the next Scan starts at the next
    collection. Cost: 0.5 RCU per collection while a collection's first item is ≤ 4 KB. Needs
    nothing prepared in advance; cheapest without an index once collections exceed ~4 KB.

``auto`` reads DescribeTable (free) and picks the cheapest by estimated RCU; the number of
collections, which only skip-scan's estimate needs, comes from the index's ItemCount when an
index is named, and otherwise from a probe: a full Scan of ONE of T parallel-scan segments
(segments split by partition-key hash, so a collection never spans two), distinct keys in it
× T ≈ collections. On AWS, ItemCount and the size figures are refreshed about every six hours;
on DynamoDB Local they are live.

Scan and skip-scan (and gsi) run ``segments`` parallel segments (Segment/TotalSegments) on
threads; segments partition the table by partition key, so their union is the serial answer.
Capacity is DynamoDB's own ConsumedCapacity (``ddbmodels.capacity``), never an estimate; the
client is ``connection.client()`` (botocore "standard" retries: throttling and 5xx back off
with jitter, a bounded number of times), and the retries it made are counted.

Nothing here imports Django; any table on the endpoint works, not only ours.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ddbmodels import capacity, connection
from ddbmodels.errors import DomainError, NotFound

AUTO = "auto"
SCAN = "scan"
GSI = "gsi"
SKIP_SCAN = "skip-scan"
METHODS = (AUTO, SCAN, GSI, SKIP_SCAN)

# The largest value of each key type (sort keys: 1,024 bytes at most). Strings and binaries
# compare as unsigned UTF-8 bytes, so 256 × U+10FFFF (F4 8F BF BF each) tops every string.
MAX_S = "\U0010ffff" * 256
MAX_N = "9.9999999999999999999999999999999999999E+125"
MAX_B = b"\xff" * 1024
MAX_VALUE: dict[str, Any] = {"S": MAX_S, "N": MAX_N, "B": MAX_B}

READ_UNIT_BYTES = 4096
RCU_PER_UNIT = 0.5  # eventually consistent
MAX_TOTAL_SEGMENTS = 1_000_000  # DynamoDB's limit for TotalSegments
MAX_THREADS = 32  # connection.client() keeps 32 HTTP connections; more segments share the threads
PROBE_ITEMS_PER_SEGMENT = 200  # the probe's T = clamp(ItemCount // 200, 1, 1000)
PROBE_MAX_SEGMENTS = 1000
PROGRESS_INTERVAL_S = 0.1

Key = str | int | Decimal | bytes
ProgressCallback = Callable[[int, int], None]


class DistinctKeysError(DomainError):
    """The distinct keys could not be listed."""

    code = "distinct_keys_error"


class BadRequest(DistinctKeysError):
    """An argument does not fit the table (method, segments or index)."""

    code = "distinct_keys_bad_request"


class TableNotFound(NotFound):
    """No such table on this endpoint."""

    code = "table_not_found"


class ReadFailed(DistinctKeysError):
    """A DynamoDB call failed after botocore's retries."""

    code = "distinct_keys_read_failed"


# ---------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class IndexInfo:
    """A secondary index as DescribeTable reports it."""

    name: str
    kind: str  # "global" or "local"
    projection: str
    item_count: int
    size_bytes: int


@dataclass(frozen=True)
class TableInfo:
    """Key schema, size and indexes of a table (DescribeTable)."""

    name: str
    hash_key: str
    hash_type: str
    range_key: str | None
    range_type: str | None
    item_count: int
    size_bytes: int
    indexes: dict[str, IndexInfo] = field(default_factory=dict)

    @classmethod
    def from_description(cls, table: dict[str, Any]) -> TableInfo:
        types = {a["AttributeName"]: a["AttributeType"] for a in table.get("AttributeDefinitions", [])}
        keys = {k["KeyType"]: k["AttributeName"] for k in table["KeySchema"]}
        indexes: dict[str, IndexInfo] = {}
        for kind, entries in (
            ("global", table.get("GlobalSecondaryIndexes", [])),
            ("local", table.get("LocalSecondaryIndexes", [])),
        ):
            for index in entries:
                indexes[index["IndexName"]] = IndexInfo(
                    name=index["IndexName"],
                    kind=kind,
                    projection=(index.get("Projection") or {}).get("ProjectionType", ""),
                    item_count=int(index.get("ItemCount") or 0),
                    size_bytes=int(index.get("IndexSizeBytes") or 0),
                )
        range_key = keys.get("RANGE")
        return cls(
            name=table["TableName"],
            hash_key=keys["HASH"],
            hash_type=types[keys["HASH"]],
            range_key=range_key,
            range_type=types[range_key] if range_key else None,
            item_count=int(table.get("ItemCount") or 0),
            size_bytes=int(table.get("TableSizeBytes") or 0),
            indexes=indexes,
        )


def describe(table_name: str) -> TableInfo:
    """DescribeTable — free (no read capacity): key schema, ItemCount, TableSizeBytes, indexes.

    Raises TableNotFound when the endpoint has no such table.
    """
    try:
        answer = connection.client().describe_table(TableName=table_name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
            raise TableNotFound(f"no table {table_name!r} on this endpoint", table=table_name) from None
        raise ReadFailed(f"DescribeTable {table_name!r} failed: {error}", table=table_name) from error
    except BotoCoreError as error:
        raise ReadFailed(f"DescribeTable {table_name!r} failed: {error}", table=table_name) from error
    return TableInfo.from_description(answer["Table"])


def decode_key(value: dict[str, Any]) -> Key:
    """No DynamoDB call — a key AttributeValue as Python: S → str, B → bytes, N → int if integral, else Decimal.

    Exact: DynamoDB's 38 significant digits survive (Decimal's context plays no part here).
    """
    if "S" in value:
        return str(value["S"])
    if "B" in value:
        return bytes(value["B"])
    if "N" in value:
        number = Decimal(value["N"])
        return int(number) if number == number.to_integral_value() else number
    raise ValueError(f"not a key value: {value!r}")


# ---------------------------------------------------------------------------------- the report


@dataclass
class Report:
    """What a listing did and what it cost. Capacity and requests are measured, never estimated."""

    table: str
    method: str  # the method actually used
    requested_method: str
    segments: int  # TotalSegments of the listing (1: serial)
    segment: int | None  # segment_keys: the one segment listed; None: all of them
    index_name: str | None
    distinct_keys: int
    requests: int  # every DynamoDB call: DescribeTable, the probe's Scans, the listing's Scans
    rcu: float  # ConsumedCapacity of all of them (auto: probe included)
    retries: int  # attempts botocore retried (throttling, 5xx), from ResponseMetadata.RetryAttempts
    seconds: float
    by_operation: dict[str, int] = field(default_factory=dict)
    estimates: dict[str, float] | None = None  # auto: estimated RCU per candidate method
    collections_estimate: float | None = None  # auto: the number of collections skip-scan's estimate used
    collections_source: str | None = None  # auto: "probe", "index" or "probe (whole table)"
    probe: dict[str, Any] | None = None  # auto without an index: the probe's segment count, reads and RCU
    reason: str | None = None  # why the method used differs from the one requested, or why auto chose it

    def as_dict(self) -> dict[str, Any]:
        """JSON-serializable (floats rounded to 3 places)."""
        return {
            "table": self.table,
            "method": self.method,
            "requested_method": self.requested_method,
            "segments": self.segments,
            "segment": self.segment,
            "index_name": self.index_name,
            "distinct_keys": self.distinct_keys,
            "requests": self.requests,
            "rcu": round(self.rcu, 3),
            "retries": self.retries,
            "seconds": round(self.seconds, 3),
            "by_operation": dict(self.by_operation),
            "estimates": {k: round(v, 3) for k, v in self.estimates.items()} if self.estimates is not None else None,
            "collections_estimate": (
                round(self.collections_estimate, 1) if self.collections_estimate is not None else None
            ),
            "collections_source": self.collections_source,
            "probe": dict(self.probe) if self.probe is not None else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Result:
    """The distinct partition keys, sorted (str by code point = DynamoDB's UTF-8 order), and the report."""

    keys: list[Key]
    report: Report


# ---------------------------------------------------------------------------------- the engine


class _Tally:
    """Keys, requests, retries and capacity of one phase, shared by its segment threads."""

    def __init__(self, on_progress: ProgressCallback | None = None, request_offset: int = 0) -> None:
        self.keys: set[Key] = set()
        self.scans = 0
        self.items = 0
        self.retries = 0
        self.meter = capacity.CapacityMeter()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._on_progress = on_progress
        self._offset = request_offset
        self._last_progress = 0.0

    def call(self, operation: Callable[..., dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        try:
            answer = operation(**kwargs)
        except ClientError as error:
            self._count_retries(error.response)
            code = error.response.get("Error", {}).get("Code", "")
            if code == "ResourceNotFoundException":
                raise TableNotFound(f"no table {kwargs.get('TableName')!r} (or index) on this endpoint") from None
            raise ReadFailed(f"Scan of {kwargs.get('TableName')!r} failed: {error}", retries=self.retries) from error
        except BotoCoreError as error:
            raise ReadFailed(f"Scan of {kwargs.get('TableName')!r} failed: {error}") from error
        self._count_retries(answer)
        return answer

    def _count_retries(self, answer: dict[str, Any]) -> None:
        attempts = int((answer.get("ResponseMetadata") or {}).get("RetryAttempts") or 0)
        if attempts:
            with self._lock:
                self.retries += attempts

    def add(self, keys: Iterable[Key], items: int) -> None:
        """One Scan answered: its keys; report progress at most every PROGRESS_INTERVAL_S."""
        with self._lock:
            self.keys.update(keys)
            self.scans += 1
            self.items += items
            if self._on_progress is not None:
                now = time.monotonic()
                if now - self._last_progress >= PROGRESS_INTERVAL_S:
                    self._last_progress = now
                    self._on_progress(len(self.keys), self._offset + self.scans)

    def finish(self) -> None:
        """The last progress report, always made."""
        with self._lock:
            if self._on_progress is not None:
                self._on_progress(len(self.keys), self._offset + self.scans)


def _scan_kwargs(table: TableInfo, index_name: str | None, segment: int, total_segments: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "TableName": table.name,
        "ProjectionExpression": "#k",
        "ExpressionAttributeNames": {"#k": table.hash_key},
        "ReturnConsumedCapacity": "TOTAL",
    }
    if index_name is not None:
        kwargs["IndexName"] = index_name
    if total_segments > 1:
        kwargs["Segment"] = segment
        kwargs["TotalSegments"] = total_segments
    return kwargs


def _scan_segment(tally: _Tally, table: TableInfo, index_name: str | None, segment: int, total: int) -> None:
    """Every page of one segment, projecting the base table's partition key."""
    client = connection.client()
    kwargs = _scan_kwargs(table, index_name, segment, total)
    while not tally.stop.is_set():
        answer = tally.call(client.scan, **kwargs)
        items = answer.get("Items", [])
        tally.add((decode_key(item[table.hash_key]) for item in items if table.hash_key in item), len(items))
        start = answer.get("LastEvaluatedKey")
        if not start:
            return
        kwargs["ExclusiveStartKey"] = start


def _skip_scan_segment(tally: _Tally, table: TableInfo, index_name: str | None, segment: int, total: int) -> None:
    """Limit-1 Scans of one segment, each starting past the largest sort key of the previous collection."""
    assert table.range_key is not None
    assert table.range_type is not None
    client = connection.client()
    kwargs = _scan_kwargs(table, None, segment, total)
    kwargs["Limit"] = 1
    beyond = {table.range_type: MAX_VALUE[table.range_type]}
    jumped_from: Any = None  # the partition key the last jump was meant to leave behind
    while not tally.stop.is_set():
        answer = tally.call(client.scan, **kwargs)
        items = answer.get("Items", [])
        if items and jumped_from is not None and items[0][table.hash_key] == jumped_from:
            # The "largest" sort key was not the largest here (an endpoint that orders keys
            # differently): jumping again would loop forever on this collection.
            raise DistinctKeysError(
                f"skip-scan of {table.name!r} landed twice in the collection {decode_key(jumped_from)!r}: "
                "this endpoint orders sort keys differently; use --method scan",
                table=table.name,
            )
        tally.add((decode_key(item[table.hash_key]) for item in items), len(items))
        last = answer.get("LastEvaluatedKey")
        if not last:
            return
        jumped_from = last[table.hash_key] if items else None
        # An empty page with a LastEvaluatedKey (possible on AWS) has not shown us that key's
        # collection yet: continue from the key as given. Otherwise jump past the collection.
        kwargs["ExclusiveStartKey"] = {**last, table.range_key: beyond} if items else last


SegmentWorker = Callable[[_Tally, TableInfo, str | None, int, int], None]


def _measured(tally: _Tally, worker: SegmentWorker, *args: Any) -> None:
    """Run a worker under its own capacity meter (meters are per thread), added to the phase's."""
    with capacity.measure() as meter:
        try:
            worker(tally, *args)
        finally:
            tally.meter.add(meter)


def _run_segments(
    tally: _Tally, worker: SegmentWorker, table: TableInfo, index_name: str | None, segments: list[int], total: int
) -> None:
    """The given segments of ``total``: inline when one, else on up to MAX_THREADS threads."""
    if len(segments) == 1:
        _measured(tally, worker, table, index_name, segments[0], total)
        return
    threads = min(len(segments), MAX_THREADS)
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="distinct-keys") as pool:
        # Each thread runs in a copy of the caller's context, so the caller's own meters
        # (``with capacity.measure()`` around this call) see the Scans of every thread too.
        futures = [
            pool.submit(contextvars.copy_context().run, _measured, tally, worker, table, index_name, segment, total)
            for segment in segments
        ]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            failed = [f for f in done if f.exception() is not None]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
        except BaseException:
            # A failed segment, or Ctrl-C: the other threads stop at their next request, the
            # segments not yet started never start, and the pool's exit does not wait for a full run.
            tally.stop.set()
            for future in futures:
                future.cancel()
            raise


def _check_segments(segments: int) -> None:
    if not isinstance(segments, int) or isinstance(segments, bool) or not 1 <= segments <= MAX_TOTAL_SEGMENTS:
        raise BadRequest(f"segments must be an integer from 1 to {MAX_TOTAL_SEGMENTS}, got {segments!r}")


def _check_index(table: TableInfo, index_name: str | None) -> str:
    if not index_name:
        raise BadRequest("method gsi needs the name of a sparse index with one item per collection (index_name)")
    if index_name not in table.indexes:
        known = ", ".join(sorted(table.indexes)) or "none"
        raise BadRequest(f"table {table.name!r} has no index {index_name!r} (indexes: {known})")
    return index_name


@dataclass
class _Listing:
    keys: set[Key]
    method: str
    segments: int
    tally: _Tally
    reason: str | None = None


def _list(
    table: TableInfo,
    method: str,
    *,
    segments: int,
    index_name: str | None,
    on_progress: ProgressCallback | None,
    request_offset: int = 0,
    only_segment: int | None = None,
) -> _Listing:
    tally = _Tally(on_progress, request_offset)
    reason = None
    worker: SegmentWorker
    if method == SKIP_SCAN and table.range_key is None:
        method, reason = (
            SCAN,
            "the table has no sort key: every item is its own collection, a plain scan reads each once",
        )
    if method == SCAN:
        worker, index_name = _scan_segment, None
    elif method == GSI:
        worker = _scan_segment
    elif method == SKIP_SCAN:
        worker, index_name = _skip_scan_segment, None
    else:
        raise BadRequest(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    numbers = list(range(segments)) if only_segment is None else [only_segment]
    _run_segments(tally, worker, table, index_name, numbers, segments)
    tally.finish()
    return _Listing(keys=tally.keys, method=method, segments=segments, tally=tally, reason=reason)


# ---------------------------------------------------------------------------------- estimates


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
    _check_segments(total)
    tally = _Tally()
    _run_segments(tally, _scan_segment, table, None, [segment], total)
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


# ---------------------------------------------------------------------------------- public API


def distinct_keys(
    table_name: str,
    method: str = AUTO,
    *,
    segments: int = 1,
    index_name: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """DescribeTable (free), then Scans by ``method`` — the method's RCU (auto: + its probe, ≈ 1/T of a scan).

    scan ≈ TableSizeBytes / 4 KB × 0.5, gsi ≈ IndexSizeBytes / 4 KB × 0.5, skip-scan = 0.5 per
    collection while first items are ≤ 4 KB; the report holds the measured figures.

    ``auto`` picks the cheapest estimate; without an index it first probes one segment of T
    (about 1/T of a scan, included in the report's RCU). ``segments`` > 1 runs that many
    parallel segments on threads. ``on_progress(keys_so_far, requests_so_far)`` is called
    from any thread, one call at a time, at most every 0.1 s and once at the end.
    """
    if method not in METHODS:
        raise BadRequest(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    _check_segments(segments)
    began = time.perf_counter()
    with capacity.measure() as describe_meter:
        table = describe(table_name)
    # Only gsi and auto use an index; scan and skip-scan read the table itself.
    index_name = _check_index(table, index_name) if method == GSI or (method == AUTO and index_name) else None

    estimates: dict[str, float] | None = None
    collections: float | None = None
    source: str | None = None
    found: Probe | None = None
    reason: str | None = None
    chosen = method
    listing: _Listing | None = None
    if method == AUTO:
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
        if found is not None and found.whole_table:
            # The probe already scanned everything: its keys are the answer, nothing is read twice.
            listing = _Listing(keys=set(found.keys), method=SCAN, segments=1, tally=_Tally())
            small = 2 * PROBE_ITEMS_PER_SEGMENT
            reason = f"the probe scanned the whole table (ItemCount < {small}): its keys are the answer"
            if on_progress is not None:
                on_progress(len(found.keys), found.requests)
    if listing is None:
        listing = _list(
            table,
            chosen,
            segments=segments,
            index_name=index_name if chosen == GSI else None,
            on_progress=on_progress,
            request_offset=found.requests if found is not None else 0,
        )
        reason = listing.reason or reason

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
        estimates=estimates,
        collections_estimate=collections,
        collections_source=source,
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
    """Scan of a sparse KEYS_ONLY index, one item per collection — IndexSizeBytes / 4 KB × 0.5 RCU.

    Returns the base table's partition keys found in the index: complete only if every
    collection has its static item.
    """
    return distinct_keys(table_name, GSI, segments=segments, index_name=index_name, on_progress=on_progress)


def skip_scan_keys(table_name: str, *, segments: int = 1, on_progress: ProgressCallback | None = None) -> Result:
    """Scan Limit 1 per collection, restarting past its largest sort key — 0.5 RCU per collection.

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
    _check_segments(total_segments)
    if not isinstance(segment, int) or isinstance(segment, bool) or not 0 <= segment < total_segments:
        raise BadRequest(f"segment must be from 0 to {total_segments - 1}, got {segment!r}")
    began = time.perf_counter()
    with capacity.measure() as describe_meter:
        table = describe(table_name)
    index_name = _check_index(table, index_name) if method == GSI else None
    listing = _list(
        table,
        method,
        segments=total_segments,
        index_name=index_name,
        on_progress=on_progress,
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
