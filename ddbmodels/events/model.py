"""The events tables: activity events, one table per period (day, ISO week or month), old ones archived.

    table  <prefix>events-<period id>   events-2026-11 (month), events-2026-W47 (ISO week),
                                        events-2026-11-22 (day); the kind is the app's setting
    PK  s  the stream: "<tenant>#<PROJECT>#<number>" for an issue
    SK  t  "2026-11-22T10:15:30.123Z#9f86d081": UTC with milliseconds, then a random id, so keys
           are unique and sort by time as plain strings
        kind (issue.created, issue.status, …: registered in ``kinds``), actor, tenant, data (a map)
    GSI by_day  PK d = "<tenant>#<YYYY-MM-DD>#<n>", SK t, projection ALL

The time-series pattern: an event is written to the table of its period, so the current
table takes all the writes and gets the high throughput, older tables are turned down, and past
retention a table is archived and dropped whole (``patterns.time_series``). A stream's history
is read newest first, one Query per period table, from the current one back to its issue's
creation (``tracker.selectors.activity``; the walk stops at the oldest table not yet archived).

"Everything a tenant did on a day" would be one hot index key per tenant and day; the key is
write-sharded instead with a *calculated* suffix, n = crc32(stream) % N + 1: writes of
a busy day spread over N keys, reading a day costs N Queries merged by ``t``, and every event of
one stream lands on the same shard (a stream's events of a day are one Query away). Reading with
more shards than were written is harmless (the extra keys are empty); fewer would miss events.

Why the low-level client and not PynamoDB models: the tables are not a fixed set but one more
every period, created on the fly. A PynamoDB model per physical table would be a dynamic class
per name, each caching its own connection, and ``connection.configure()`` only re-points the
registered models, so they would need a cache of their own keyed by settings and name. The
botocore client of ``core.connection.client()`` already follows ``configure()``, has the standard
retries, is metered (``capacity``), and speaks the wire format the archive keeps item for item.
The ``data`` map is converted by the small serializer below.

Cost: ``event_put`` is one PutItem: 1 WCU per started KB for the table plus the same for the
``by_day`` index (2 WCU for an event ≤ 1 KB). Reads are eventually consistent unless asked:
0.5 RCU per started 4 KB read per Query page.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from ddbmodels.core.errors import DomainError
from ddbmodels.core.keys import as_utc, parse_time_key, shard_suffix, time_key
from ddbmodels.core.tables import DEFAULT_THROUGHPUT, PAY_PER_REQUEST, PROVISIONED, check_billing_mode
from ddbmodels.events.kinds import is_kind
from ddbmodels.patterns.time_series import PeriodKind, PeriodTables

DEFAULT_PERIOD: PeriodKind = "month"
DEFAULT_SHARDS = 4
BASE = "events-"
BY_DAY_INDEX = "by_day"


class PeriodClosed(DomainError, code="period_closed"):
    """The event's period is older than the previous one; its table is not created again."""


def shard_of(stream: str, shards: int = DEFAULT_SHARDS) -> int:
    """The calculated write shard of a stream, 1..shards (stable across processes: crc32, not hash())."""
    return shard_suffix(stream, shards)


def day_key(tenant: str, day: date, shard: int) -> str:
    """Partition key of the ``by_day`` index: ``<tenant>#<YYYY-MM-DD>#<n>``."""
    return f"{tenant}#{day:%Y-%m-%d}#{shard}"


def new_sort_key(when: datetime) -> str:
    """``2026-11-22T10:15:30.123Z#<8 hex>``: fixed width, so string order is time order."""
    return f"{time_key(when)}#{secrets.token_hex(4)}"


def creation_key(when: datetime, token: str) -> str:
    """The one sort key of an item's creation event: its creation time, then 8 hex of sha256(``token``).

    ``token`` is the created item's own (the writer's request token it carries, else its identity), so
    every call that records the same creation (the first request, or a replay of its idempotency key
    whose answer was lost) writes the same key: ``event_put(key=...)`` is then conditional and writes it
    once, and the notifications and webhook deliveries keyed by it are not doubled either.
    """
    return f"{time_key(when)}#{hashlib.sha256(token.encode()).hexdigest()[:8]}"


# When ``creation_key`` became the creation events' key (the release of 2026-11-26): an item created before it
# had its creation recorded under a random key (``new_sort_key``), which a second recording under ``creation_key``
# would not see. Replays record such items no more (``keyed_by_creation``); the idempotency keys that could replay
# one expire 24 h after the release, so this matters for a day, and the constant is harmless after it.
CREATION_KEYS_SINCE = datetime(2026, 11, 26, 12, 16, tzinfo=UTC)  # 1b11a18 (12:15:08) brought them


def keyed_by_creation(created_at: datetime) -> bool:
    """Whether an item created at ``created_at`` had its creation recorded under ``creation_key`` (recording it
    again is then safe: written once); False for one created before ``CREATION_KEYS_SINCE``."""
    return as_utc(created_at) >= CREATION_KEYS_SINCE


def sort_key_time(t: str) -> datetime:
    """The time in a sort key (millisecond precision, aware UTC)."""
    return parse_time_key(t)


@dataclass(frozen=True)
class Event:
    """One activity event as stored."""

    stream: str
    t: str
    kind: str
    actor: str
    tenant: str
    data: dict[str, Any] = field(default_factory=dict)
    table: str = ""

    @property
    def at(self) -> datetime:
        return sort_key_time(self.t)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "t": self.t,
            "at": self.at.isoformat(),
            "kind": self.kind,
            "actor": self.actor,
            "tenant": self.tenant,
            "data": self.data,
            "table": self.table,
        }


def event_item(
    *,
    stream: str,
    kind: str,
    actor: str,
    tenant: str,
    data: Mapping[str, Any] | None,
    when: datetime,
    shards: int,
    key: str | None = None,
) -> dict[str, Any]:
    """The item of an event in DynamoDB's wire format (what ``event_put`` writes); ``key``: its sort key
    (``creation_key``), else a new one at ``when``."""
    for label, value in (("stream", stream), ("kind", kind), ("actor", actor), ("tenant", tenant)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"event {label} must be a non-empty string")
    if "#" in tenant:
        raise ValueError(f"tenant may not contain '#': {tenant!r}")
    if not is_kind(kind):
        raise ValueError(f"unknown event kind {kind!r}: register it in ddbmodels.events.kinds")
    when = as_utc(when)
    return {
        "s": {"S": stream},
        "t": {"S": key or new_sort_key(when)},
        "d": {"S": day_key(tenant, when.date(), shard_of(stream, shards))},
        "kind": {"S": kind},
        "actor": {"S": actor},
        "tenant": {"S": tenant},
        "data": to_attribute(dict(data or {})),
    }


def event_from_item(item: Mapping[str, Any], table: str = "") -> Event:
    return Event(
        stream=item["s"]["S"],
        t=item["t"]["S"],
        kind=item.get("kind", {}).get("S", ""),
        actor=item.get("actor", {}).get("S", ""),
        tenant=item.get("tenant", {}).get("S", ""),
        data=from_attribute(item["data"]) if "data" in item else {},
        table=table,
    )


def to_attribute(value: Any) -> dict[str, Any]:
    """A Python value as a DynamoDB attribute value (floats go through their repr, never binary)."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | Decimal | float):
        return {"N": _number(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes | bytearray):
        return {"B": bytes(value)}
    if isinstance(value, set | frozenset):
        if not value:
            raise ValueError("DynamoDB has no empty sets")
        if all(isinstance(v, str) for v in value):
            return {"SS": sorted(value)}
        if all(isinstance(v, int | Decimal | float) and not isinstance(v, bool) for v in value):
            return {"NS": sorted(_number(v) for v in value)}
        if all(isinstance(v, bytes) for v in value):
            return {"BS": sorted(value)}
        raise ValueError("a set must hold only strings, only numbers or only bytes")
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("map keys must be strings")
        return {"M": {k: to_attribute(v) for k, v in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [to_attribute(v) for v in value]}
    raise ValueError(f"cannot store a {type(value).__name__} in an event")


def _number(value: int | Decimal | float) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"DynamoDB numbers are finite, got {value}")
        return str(Decimal(repr(value)))  # the shortest decimal that reads back as this float: 0.1 → "0.1"
    return str(value)


def from_attribute(value: Mapping[str, Any]) -> Any:
    """A DynamoDB attribute value as Python: N → int when integral, else Decimal; sets → set."""
    (tag, raw), *_ = value.items()
    if tag == "S" or tag == "BOOL" or tag == "B":
        return raw
    if tag == "NULL":
        return None
    if tag == "N":
        return _from_number(raw)
    if tag == "SS" or tag == "BS":
        return set(raw)
    if tag == "NS":
        return {_from_number(n) for n in raw}
    if tag == "L":
        return [from_attribute(v) for v in raw]
    if tag == "M":
        return {k: from_attribute(v) for k, v in raw.items()}
    raise ValueError(f"unknown attribute type {tag}")


def _from_number(text: str) -> int | Decimal:
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() else number


def table_definition(
    name: str, billing_mode: str = PAY_PER_REQUEST, throughput: tuple[int, int] = DEFAULT_THROUGHPUT
) -> dict[str, Any]:
    """CreateTable arguments of an events table (the ``by_day`` index gets the table's throughput)."""
    check_billing_mode(billing_mode)
    provisioned = {"ReadCapacityUnits": throughput[0], "WriteCapacityUnits": throughput[1]}
    index: dict[str, Any] = {
        "IndexName": BY_DAY_INDEX,
        "KeySchema": [{"AttributeName": "d", "KeyType": "HASH"}, {"AttributeName": "t", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    definition: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [{"AttributeName": "s", "KeyType": "HASH"}, {"AttributeName": "t", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("s", "t", "d")],
        "GlobalSecondaryIndexes": [index],
        "BillingMode": billing_mode,
    }
    if billing_mode == PROVISIONED:
        definition["ProvisionedThroughput"] = provisioned
        index["ProvisionedThroughput"] = dict(provisioned)
    return definition


EVENTS = PeriodTables(base=BASE, definition=table_definition)
