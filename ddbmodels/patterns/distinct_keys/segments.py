"""Segments (Segment/TotalSegments) run inline or on threads, and a listing by one method over them."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.patterns.distinct_keys.methods import (
    GSI,
    METHODS,
    SCAN,
    SKIP_SCAN,
    ProgressCallback,
    Tally,
    scan_segment,
    skip_scan_segment,
)
from ddbmodels.patterns.distinct_keys.table import BadRequest, Key, TableInfo

MAX_TOTAL_SEGMENTS = 1_000_000  # DynamoDB's limit for TotalSegments
MAX_THREADS = 32  # connection.client() keeps 32 HTTP connections; more segments share the threads

SegmentWorker = Callable[[Tally, TableInfo, str | None, int, int], None]


def _measured(tally: Tally, worker: SegmentWorker, *args: Any) -> None:
    """Run a worker under its own capacity meter (meters are per thread), added to the phase's."""
    with capacity.measure() as meter:
        try:
            worker(tally, *args)
        finally:
            tally.meter.add(meter)


def run_segments(
    tally: Tally, worker: SegmentWorker, table: TableInfo, index_name: str | None, segments: list[int], total: int
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


def check_segments(segments: int) -> None:
    if not isinstance(segments, int) or isinstance(segments, bool) or not 1 <= segments <= MAX_TOTAL_SEGMENTS:
        raise BadRequest(f"segments must be an integer from 1 to {MAX_TOTAL_SEGMENTS}, got {segments!r}")


def check_index(table: TableInfo, index_name: str | None) -> str:
    if not index_name:
        raise BadRequest("method gsi needs the name of a sparse index with one item per collection (index_name)")
    if index_name not in table.indexes:
        known = ", ".join(sorted(table.indexes)) or "none"
        raise BadRequest(f"table {table.name!r} has no index {index_name!r} (indexes: {known})")
    return index_name


@dataclass
class Listing:
    keys: set[Key]
    method: str
    segments: int
    tally: Tally
    reason: str | None = None


def list_collections(
    table: TableInfo,
    method: str,
    *,
    segments: int,
    index_name: str | None,
    on_progress: ProgressCallback | None,
    progress_interval: float,
    request_offset: int = 0,
    only_segment: int | None = None,
) -> Listing:
    tally = Tally(on_progress, request_offset, progress_interval)
    reason = None
    worker: SegmentWorker
    if method == SKIP_SCAN and table.range_key is None:
        method, reason = (
            SCAN,
            "the table has no sort key: every item is its own collection, a plain scan reads each once",
        )
    if method == SCAN:
        worker, index_name = scan_segment, None
    elif method == GSI:
        worker = scan_segment
    elif method == SKIP_SCAN:
        worker, index_name = skip_scan_segment, None
    else:
        raise BadRequest(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    numbers = list(range(segments)) if only_segment is None else [only_segment]
    with capacity.access_pattern(f"distinct_keys.{method}"):  # the method that runs, after any fallback
        run_segments(tally, worker, table, index_name, numbers, segments)
    tally.finish()
    return Listing(keys=tally.keys, method=method, segments=segments, tally=tally, reason=reason)
