"""Key helpers shared by every table: aware UTC time, millisecond time keys, calculated shard suffixes.

Time keys are ``2026-11-22T10:15:30.123Z``: fixed width, so string order is time order, which is
what lets a sort key hold a time (orders, events) and a BETWEEN of two time keys be a range.

Write sharding with a *calculated* suffix: the suffix of an item is computed from something the
item already has (its id, its stream, a member's name, its number), so the writes of one hot
logical key spread over N physical keys and a reader knows the N keys to Query. crc32, not
``hash()``: the suffix must be the same in every process.
"""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime

TENANT_SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$")
ISSUE_STREAM_RE = re.compile(r"^([^#]+)#([A-Z][A-Z0-9]{1,9})#([1-9][0-9]{0,14})$")
TIME_KEY_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utcnow() -> datetime:
    """Aware UTC now (PynamoDB would label a naive local time as UTC)."""
    return datetime.now(UTC)


def issue_stream(tenant: str, project_key: str, number: int) -> str:
    """An issue's stream ``<tenant>#<PROJECT>#<number>``: the one key of everything kept per issue.

    The partition key of the issue's events (its history), comments, attachments and watchers,
    and what cursors of those lists are bound to. Built here only; ``parse_issue_stream`` reads it.
    """
    return f"{tenant}#{project_key}#{int(number)}"


def parse_issue_stream(stream: str) -> tuple[str, str, int]:
    """(tenant, project key, number) of an issue's stream; ValueError for anything else."""
    match = ISSUE_STREAM_RE.match(stream)
    if not match or not TENANT_SLUG_RE.match(match.group(1)):
        raise ValueError(f"not an issue stream: {stream!r}")
    return match.group(1), match.group(2), int(match.group(3))


def as_utc(when: datetime) -> datetime:
    """``when`` in UTC; a naive datetime is refused (it would be silently taken for UTC elsewhere)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"naive datetime {when!r}: pass a timezone-aware UTC datetime")
    return when.astimezone(UTC)


def time_key(when: datetime) -> str:
    """``2026-11-22T10:15:30.123Z``: UTC with milliseconds, fixed width (string order is time order)."""
    when = as_utc(when)
    return f"{when:%Y-%m-%dT%H:%M:%S}.{when.microsecond // 1000:03d}Z"


def parse_time_key(key: str) -> datetime:
    """The time at the start of a key (``<time key>`` or ``<time key>#…``), aware UTC."""
    return datetime.strptime(key.partition("#")[0], TIME_KEY_FORMAT).replace(tzinfo=UTC)


def shard_suffix(value: str | int, shards: int, *, first: int = 1) -> int:
    """The calculated write shard of ``value``: ``first`` … ``first + shards - 1``.

    A string goes through crc32 (stable across processes); a number is taken modulo ``shards``
    (consecutive numbers go round-robin). ``first`` is part of what is stored: orders have
    always counted their shards from 0, everything else from 1.
    """
    if shards < 1:
        raise ValueError(f"shards must be ≥ 1, got {shards}")
    number = value if isinstance(value, int) else zlib.crc32(value.encode())
    return number % shards + first
