"""Activity events, one table per period (day, ISO week or month): recent tables hot, old ones archived.

    table  <prefix>events-<period id>   events-2026-11 (month), events-2026-W47 (ISO week),
                                        events-2026-11-22 (day); the kind is the app's setting
    PK  s  the stream: "<tenant>#<PROJECT>#<number>" for an issue
    SK  t  "2026-11-22T10:15:30.123Z#9f86d081": UTC with milliseconds, then a random id, so keys
           are unique and sort by time as plain strings
        kind (issue.created, issue.status, …), actor, tenant, data (a map)
    GSI by_day  PK d = "<tenant>#<YYYY-MM-DD>#<n>", SK t, projection ALL

Seed 004's time-series advice: an event is written to the table of its period, so the current
table takes all the writes and gets the high throughput, older tables are turned down, and past
retention a table is archived and dropped whole (``patterns.time_series``). A stream's history
is read newest first from the current and the previous table.

"Everything a tenant did on a day" would be one hot index key per tenant and day; the key is
write-sharded instead with seed 004's *calculated* suffix, n = crc32(stream) % N + 1: writes of
a busy day spread over N keys, reading a day costs N Queries merged by ``t``, and every event of
one stream lands on the same shard (a stream's events of a day are one Query away). Reading with
more shards than were written is harmless (the extra keys are empty); fewer would miss events.

Why the low-level client and not PynamoDB models: the tables are not a fixed set but one more
every period, created on the fly. A PynamoDB model per physical table would be a dynamic class
per name, each caching its own connection, and ``connection.configure()`` only re-points the
registered models, so they would need a cache of their own keyed by settings and name. The
botocore client of ``connection.client()`` already follows ``configure()``, has the standard
retries, is metered (``capacity``), and speaks the wire format the archive keeps item for item.
The ``data`` map is converted by the small serializer below.

Cost: ``event_put`` is one PutItem: 1 WCU per started KB for the table plus the same for the
``by_day`` index (2 WCU for an event ≤ 1 KB). Reads are eventually consistent unless asked:
0.5 RCU per started 4 KB read per Query page.
"""

from __future__ import annotations

import heapq
import math
import re
import secrets
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, Literal, TypeVar, cast, get_args

from botocore.exceptions import ClientError

from ddbmodels import capacity, connection
from ddbmodels.errors import DomainError

A = TypeVar("A")
R = TypeVar("R")
PeriodKind = Literal["day", "week", "month"]
PERIOD_KINDS: tuple[PeriodKind, ...] = get_args(PeriodKind)
DEFAULT_PERIOD: PeriodKind = "month"
DEFAULT_SHARDS = 4
PAY_PER_REQUEST = "PAY_PER_REQUEST"
PROVISIONED = "PROVISIONED"
DEFAULT_THROUGHPUT = (5, 5)  # (RCU, WCU) of a provisioned table created on the fly
BASE = "events-"
BY_DAY_INDEX = "by_day"
TABLE_WAIT_S = 300.0

_PERIOD_ID_RE = re.compile(r"^(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2}))?|-W(?P<w>\d{2}))$")


class PeriodClosed(DomainError):
    """The event's period is older than the previous one; its table is not created again."""

    code = "period_closed"


# ---------------------------------------------------------------------------- periods


def as_utc(when: datetime) -> datetime:
    """``when`` in UTC; a naive datetime is refused (it would be silently taken for UTC elsewhere)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"naive datetime {when!r}: pass a timezone-aware UTC datetime")
    return when.astimezone(UTC)


def _kind(kind: str) -> PeriodKind:
    if kind not in PERIOD_KINDS:
        raise ValueError(f"period kind must be one of {', '.join(PERIOD_KINDS)}, got {kind!r}")
    return cast(PeriodKind, kind)


def utcnow() -> datetime:
    return datetime.now(UTC)


def period_start(kind: PeriodKind, when: datetime) -> datetime:
    """Midnight UTC of the first day of the period holding ``when`` (weeks start on Monday, ISO)."""
    kind, day = _kind(kind), as_utc(when).date()
    if kind == "week":
        day -= timedelta(days=day.weekday())
    elif kind == "month":
        day = day.replace(day=1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def period_shift(kind: PeriodKind, when: datetime, periods: int) -> datetime:
    """Start of the period ``periods`` after (negative: before) the one holding ``when``."""
    start = period_start(kind, when)
    if kind == "day":
        return start + timedelta(days=periods)
    if kind == "week":
        return start + timedelta(weeks=periods)
    months = start.year * 12 + start.month - 1 + periods
    return start.replace(year=months // 12, month=months % 12 + 1)


def period_bounds(kind: PeriodKind, when: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the period holding ``when``, both aware UTC."""
    return period_start(kind, when), period_shift(kind, when, 1)


def period_id(kind: PeriodKind, when: datetime) -> str:
    """``2026-11-22`` (day), ``2026-W47`` (ISO week: its year may differ from the date's), ``2026-11`` (month)."""
    start = period_start(kind, when)
    if kind == "day":
        return f"{start:%Y-%m-%d}"
    if kind == "week":
        iso = start.isocalendar()
        return f"{iso.year:04d}-W{iso.week:02d}"
    return f"{start:%Y-%m}"


def parse_period_id(text: str) -> tuple[PeriodKind, datetime]:
    """The kind and start of a period id; ValueError for anything ``period_id`` would not produce."""
    match = _PERIOD_ID_RE.match(text)
    try:
        if not match:
            raise ValueError
        year = int(match["y"])
        kind: PeriodKind
        if match["w"]:
            kind, start = "week", datetime.fromisocalendar(year, int(match["w"]), 1).replace(tzinfo=UTC)
        elif match["d"]:
            kind, start = "day", datetime(year, int(match["m"]), int(match["d"]), tzinfo=UTC)
        elif match["m"]:
            kind, start = "month", datetime(year, int(match["m"]), 1, tzinfo=UTC)
        else:
            raise ValueError
    except ValueError:
        raise ValueError(f"not a period id: {text!r} (expected 2026-11, 2026-W47 or 2026-11-22)") from None
    return kind, start


def events_table_name(kind: PeriodKind, when: datetime) -> str:
    """Physical name of the events table of the period holding ``when``: ``<prefix>events-<period id>``."""
    return period_table_name(period_id(kind, when))


def period_table_name(period: str) -> str:
    """Physical name of the events table of a period id (validated)."""
    parse_period_id(period)
    return connection.table_name(f"{BASE}{period}")


def parse_events_table_name(name: str) -> tuple[PeriodKind, str, datetime] | None:
    """(kind, period id, start) when ``name`` is an events table under the current prefix, else None."""
    prefix = connection.table_name(BASE)
    if not name.startswith(prefix):
        return None
    try:
        kind, start = parse_period_id(name[len(prefix) :])
    except ValueError:
        return None
    return kind, name[len(prefix) :], start


# ---------------------------------------------------------------------------- items


def shard_of(stream: str, shards: int = DEFAULT_SHARDS) -> int:
    """The calculated write shard of a stream, 1..shards (stable across processes: crc32, not hash())."""
    if shards < 1:
        raise ValueError(f"shards must be ≥ 1, got {shards}")
    return zlib.crc32(stream.encode()) % shards + 1


def day_key(tenant: str, day: date, shard: int) -> str:
    """Partition key of the ``by_day`` index: ``<tenant>#<YYYY-MM-DD>#<n>``."""
    return f"{tenant}#{day:%Y-%m-%d}#{shard}"


def new_sort_key(when: datetime) -> str:
    """``2026-11-22T10:15:30.123Z#<8 hex>``: fixed width, so string order is time order."""
    when = as_utc(when)
    return f"{when:%Y-%m-%dT%H:%M:%S}.{when.microsecond // 1000:03d}Z#{secrets.token_hex(4)}"


def sort_key_time(t: str) -> datetime:
    """The time in a sort key (millisecond precision, aware UTC)."""
    return datetime.strptime(t.partition("#")[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


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
    *, stream: str, kind: str, actor: str, tenant: str, data: Mapping[str, Any] | None, when: datetime, shards: int
) -> dict[str, Any]:
    """The item of an event in DynamoDB's wire format (what ``event_put`` writes)."""
    for label, value in (("stream", stream), ("kind", kind), ("actor", actor), ("tenant", tenant)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"event {label} must be a non-empty string")
    if "#" in tenant:
        raise ValueError(f"tenant may not contain '#': {tenant!r}")
    when = as_utc(when)
    return {
        "s": {"S": stream},
        "t": {"S": new_sort_key(when)},
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


# ---------------------------------------------------------------------------- tables


def check_billing_mode(billing_mode: str) -> str:
    if billing_mode not in (PAY_PER_REQUEST, PROVISIONED):
        raise ValueError(f"billing mode must be {PAY_PER_REQUEST} or {PROVISIONED}, got {billing_mode!r}")
    return billing_mode


def table_definition(
    name: str, *, billing_mode: str = PAY_PER_REQUEST, throughput: tuple[int, int] = DEFAULT_THROUGHPUT
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


@capacity.access_pattern("events.create_table")
def create_events_table(
    name: str,
    *,
    billing_mode: str = PAY_PER_REQUEST,
    throughput: tuple[int, int] = DEFAULT_THROUGHPUT,
    wait: bool = True,
) -> bool:
    """CreateTable (free), idempotent: True when this call created it; then waits for ACTIVE."""
    created = True
    try:
        connection.client().create_table(**table_definition(name, billing_mode=billing_mode, throughput=throughput))
    except ClientError as error:
        if error_code(error) != "ResourceInUseException":  # exists already, or being created by someone else
            raise
        created = False
    if wait:
        wait_active(name)
    return created


def wait_active(name: str, timeout_s: float = TABLE_WAIT_S) -> dict[str, Any]:
    """DescribeTable (free) until the table and its indexes are ACTIVE; returns the description."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        table = describe_table(name)
        if table is not None:
            indexes = table.get("GlobalSecondaryIndexes", [])
            if all(status == "ACTIVE" for status in [table["TableStatus"], *(i["IndexStatus"] for i in indexes)]):
                return table
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {name} not ACTIVE after {timeout_s:.0f}s")
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def describe_table(name: str) -> dict[str, Any] | None:
    """DescribeTable (free); None when the table does not exist."""
    try:
        return cast(dict[str, Any], connection.client().describe_table(TableName=name)["Table"])
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return None
        raise


def error_code(error: ClientError) -> str:
    """The DynamoDB error code of a botocore ClientError (``ResourceNotFoundException``, …)."""
    return str(error.response.get("Error", {}).get("Code", ""))


# ---------------------------------------------------------------------------- writes and reads


@capacity.access_pattern("events.put")
def event_put(
    *,
    stream: str,
    kind: str,
    actor: str,
    tenant: str,
    data: Mapping[str, Any] | None = None,
    when: datetime | None = None,
    period: PeriodKind = DEFAULT_PERIOD,
    shards: int = DEFAULT_SHARDS,
    billing_mode: str = PAY_PER_REQUEST,
    throughput: tuple[int, int] = DEFAULT_THROUGHPUT,
) -> Event:
    """PutItem into the table of ``when``'s period — 1 WCU per started KB, plus as much for ``by_day``.

    The sort key is unique (random suffix), so no condition is needed. When the table does not
    exist yet (``rotate`` normally creates it ahead of time) it is created here — idempotently,
    with ``billing_mode``/``throughput`` — and the write is retried. Only the current, next and
    previous periods (by the clock) are created on the fly: an older table may have been
    archived and dropped, and must not come back half empty (PeriodClosed).
    """
    now = utcnow()
    when = now if when is None else as_utc(when)
    item = event_item(stream=stream, kind=kind, actor=actor, tenant=tenant, data=data, when=when, shards=shards)
    name = events_table_name(period, when)
    client = connection.client()
    for attempt in (1, 2):
        try:
            client.put_item(TableName=name, Item=item, ReturnConsumedCapacity="TOTAL")
            return event_from_item(item, name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException" or attempt == 2:
                raise
        if not period_shift(period, now, -1) <= period_start(period, when) <= period_shift(period, now, 1):
            raise PeriodClosed(f"no events table for period {period_id(period, when)}", table=name)
        create_events_table(name, billing_mode=billing_mode, throughput=throughput)
    raise AssertionError("unreachable")


def map_in_threads(fn: Callable[[A], R], args: Iterable[A], *, workers: int) -> list[R]:
    """``[fn(a) for a in args]`` on up to ``workers`` threads, each call in a copy of the caller's context.

    Copying the context makes the caller's ``capacity.measure()`` meters see the threads' calls.
    """
    contexts = [(copy_context(), arg) for arg in args]
    if workers <= 1 or len(contexts) <= 1:
        return [context.run(fn, arg) for context, arg in contexts]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ddb-worker") as pool:
        return list(pool.map(lambda pair: pair[0].run(fn, pair[1]), contexts))


def _query(name: str, request: dict[str, Any], limit: int | None) -> Iterator[dict[str, Any]]:
    """Query pages (ReturnConsumedCapacity TOTAL) until ``limit`` items; a missing table is empty."""
    client = connection.client()
    request = {"TableName": name, "ReturnConsumedCapacity": "TOTAL", **request}
    returned = 0
    while limit is None or returned < limit:
        if limit is not None:
            request["Limit"] = limit - returned
        try:
            page = client.query(**request)
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return
            raise
        for item in page.get("Items", []):
            returned += 1
            yield item
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@capacity.access_pattern("events.stream")
def stream_events(
    *,
    stream: str,
    periods: Sequence[str] | None = None,
    limit: int = 50,
    before: str | None = None,
    period: PeriodKind = DEFAULT_PERIOD,
    now: datetime | None = None,
    consistent: bool = False,
) -> list[Event]:
    """Query PK=stream, SK desc, per table newest period first — 0.5 RCU per 4 KB read (1 if consistent).

    ``periods`` are period ids (default: the current and the previous period of kind ``period``).
    Each table only holds its own period's events, so newest-first across tables is the tables
    in descending order, each read newest first; reading stops as soon as ``limit`` events are
    in hand (the older table is not read when the current one has enough). ``before`` (a sort
    key ``t``) continues below the last event of a previous page. A missing table is empty.
    """
    if limit < 1:
        raise ValueError(f"limit must be ≥ 1, got {limit}")
    now = utcnow() if now is None else as_utc(now)
    if periods is None:
        periods = [period_id(period, now), period_id(period, period_shift(period, now, -1))]
    ordered = sorted(set(periods), key=lambda p: parse_period_id(p)[1], reverse=True)
    condition, values = "s = :s", {":s": {"S": stream}}
    if before is not None:
        condition, values = condition + " AND t < :before", {**values, ":before": {"S": before}}
    events: list[Event] = []
    for pid in ordered:
        name = period_table_name(pid)
        request = {
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
            "ConsistentRead": consistent,
        }
        events.extend(event_from_item(item, name) for item in _query(name, request, limit - len(events)))
        if len(events) >= limit:
            break
    return events


@capacity.access_pattern("events.by_day")
def tenant_day_events(
    *,
    tenant: str,
    day: date,
    shards: int = DEFAULT_SHARDS,
    period: PeriodKind = DEFAULT_PERIOD,
    limit: int | None = None,
    newest_first: bool = False,
) -> list[Event]:
    """Query the ``by_day`` index once per shard (N Queries, in parallel), merged by ``t`` — 0.5 RCU per 4 KB each.

    Returns the tenant's events of ``day`` (a date, UTC) in time order (``newest_first`` to
    reverse), at most ``limit`` (each shard then reads at most ``limit``: the merged top cannot
    need more from one shard). Index reads are eventually consistent (GSIs offer nothing else).
    ``shards`` must be at least the N the events were written with.
    """
    if isinstance(day, datetime):
        day = as_utc(day).date()
    if "#" in tenant:
        raise ValueError(f"tenant may not contain '#': {tenant!r}")
    name = events_table_name(period, datetime(day.year, day.month, day.day, tzinfo=UTC))

    def shard(n: int) -> list[Event]:
        request = {
            "IndexName": BY_DAY_INDEX,
            "KeyConditionExpression": "d = :d",
            "ExpressionAttributeValues": {":d": {"S": day_key(tenant, day, n)}},
            "ScanIndexForward": not newest_first,
        }
        return [event_from_item(item, name) for item in _query(name, request, limit)]

    results = map_in_threads(shard, range(1, shards + 1), workers=min(shards, 8))
    merged = heapq.merge(*results, key=lambda e: e.t, reverse=newest_first)
    return list(merged)[:limit] if limit is not None else list(merged)
