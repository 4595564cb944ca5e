"""BatchWriteItem: up to 25 puts and deletes over any tables, UnprocessedItems retried with backoff."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ddbmodels.core import connection, retry
from ddbmodels.core.errors import Unavailable

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
