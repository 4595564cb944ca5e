"""BatchWriteItem: up to 25 puts and deletes over any tables, UnprocessedItems retried with backoff.

``batch_write_paced`` is the bulk loader's variant: held to a WCU budget by a token bucket
(``core.throttle``), reporting what each chunk cost; ``interleave`` mixes the requests of
several partitions so that every chunk spreads its writes over them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ddbmodels.core import connection, retry
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.throttle import TokenBucket

BATCH_SIZE = 25  # DynamoDB's limit per BatchWriteItem
BACKOFF = retry.Backoff(attempts=8, base_s=0.05, cap_s=2.0)


def put(table: str, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A put request for ``batch_write`` (``item`` in DynamoDB JSON)."""
    return table, {"PutRequest": {"Item": item}}


def delete(table: str, key: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A delete request for ``batch_write`` (``key`` in DynamoDB JSON)."""
    return table, {"DeleteRequest": {"Key": key}}


def batch_write(requests: Iterable[tuple[str, dict[str, Any]]], *, backoff: retry.Backoff = BACKOFF) -> int:
    """BatchWriteItem in chunks of 25 (1 WCU per started KB of each item); returns how many were written.

    UnprocessedItems (DynamoDB's answer to throttling inside a batch) are sent again after a
    full-jitter backoff; Unavailable when some are still left after ``backoff.attempts`` tries.
    A chunk may mix tables and partition keys — that is how a bulk load spreads its writes.
    """
    written = 0
    chunk: list[tuple[str, dict[str, Any]]] = []
    for request in requests:
        chunk.append(request)
        if len(chunk) == BATCH_SIZE:
            written += _send(chunk, backoff)
            chunk = []
    if chunk:
        written += _send(chunk, backoff)
    return written


def _send(chunk: list[tuple[str, dict[str, Any]]], backoff: retry.Backoff) -> int:
    client = connection.client()
    pending: dict[str, list[dict[str, Any]]] = {}
    for table, request in chunk:
        pending.setdefault(table, []).append(request)
    for _ in retry.attempts(backoff):
        answer = client.batch_write_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL")
        pending = answer.get("UnprocessedItems") or {}
        if not pending:
            return len(chunk)
    left = sum(len(requests) for requests in pending.values())
    raise Unavailable(f"BatchWriteItem left {left} requests unprocessed after {backoff.attempts} attempts")


Request = tuple[str, dict[str, Any]]


def interleave(streams: Sequence[Sequence[Request]]) -> Iterator[Request]:
    """The requests of every stream, merged in proportion to their lengths (a smooth round-robin).

    Stream i's k-th request goes at position (k + ½) / len(stream i): each stream is spread evenly
    over the whole run, so every chunk of 25 carries requests of every stream (of every project of
    a bulk load) until the end, instead of one stream's tail filling the last chunks alone. The
    order depends only on the streams, so a resumed load sees the same order.
    """
    slots = sorted(((k + 0.5) / len(stream), i, k) for i, stream in enumerate(streams) for k in range(len(stream)))
    for _, i, k in slots:
        yield streams[i][k]


@dataclass
class Paced:
    """What ``batch_write_paced`` did: requests written, batches sent, WCU DynamoDB charged."""

    written: int = 0
    batches: int = 0
    wcu: float = 0.0


def _estimate(chunk: Sequence[Request]) -> float:
    """1 WCU per started KB of each item (a put's attribute names and values, near enough); index writes not counted."""
    units = 0.0
    for _, request in chunk:
        item = request.get("PutRequest", {}).get("Item") or request.get("DeleteRequest", {}).get("Key") or {}
        units += max(1, math.ceil(len(json.dumps(item, separators=(",", ":"))) / 1024))
    return units


def batch_write_paced(
    requests: Iterable[Request],
    *,
    bucket: TokenBucket | None = None,
    on_batch: Callable[[Sequence[Request], float], None] | None = None,
    backoff: retry.Backoff = BACKOFF,
) -> Paced:
    """BatchWriteItem in chunks of 25 under a WCU budget — 1 WCU per started KB of each item and index entry.

    Before each chunk the bucket gives the chunk's estimated units; DynamoDB's ConsumedCapacity
    (index writes included) settles the difference, and the bucket is drained at the end, so the
    WCU per second over the whole call stays at or under the budget. ``on_batch(chunk, wcu)`` is
    called after each chunk is written (progress, checkpoints, tests looking at what a chunk held).
    """
    done = Paced()
    chunk: list[Request] = []

    def flush() -> None:
        estimated = _estimate(chunk)
        if bucket is not None:
            bucket.take(estimated)
        wcu = _send_measured(chunk, backoff)
        if bucket is not None:
            bucket.settle(estimated, wcu)
        done.written += len(chunk)
        done.batches += 1
        done.wcu += wcu
        if on_batch is not None:
            on_batch(chunk, wcu)

    for request in requests:
        chunk.append(request)
        if len(chunk) == BATCH_SIZE:
            flush()
            chunk = []
    if chunk:
        flush()
    if bucket is not None:
        bucket.drain()
    return done


def _send_measured(chunk: Sequence[Request], backoff: retry.Backoff) -> float:
    """``_send``, returning the WCU DynamoDB reported for the chunk (every retry of it included)."""
    client = connection.client()
    pending: dict[str, list[dict[str, Any]]] = {}
    for table, request in chunk:
        pending.setdefault(table, []).append(request)
    wcu = 0.0
    for _ in retry.attempts(backoff):
        answer = client.batch_write_item(RequestItems=pending, ReturnConsumedCapacity="TOTAL")
        wcu += sum(float(c.get("CapacityUnits", 0.0)) for c in answer.get("ConsumedCapacity") or [])
        pending = answer.get("UnprocessedItems") or {}
        if not pending:
            return wcu
    left = sum(len(requests) for requests in pending.values())
    raise Unavailable(f"BatchWriteItem left {left} requests unprocessed after {backoff.attempts} attempts")
