"""Reading events: a stream newest first across period tables, a tenant's day from the sharded index."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import as_utc, parse_time_key, utcnow
from ddbmodels.core.tables import error_code
from ddbmodels.core.threads import map_in_threads
from ddbmodels.events.lifecycle import list_event_tables
from ddbmodels.events.model import BY_DAY_INDEX, DEFAULT_PERIOD, DEFAULT_SHARDS, EVENTS, Event, day_key, event_from_item
from ddbmodels.patterns.time_series import PeriodKind, parse_period_id, period_id, period_shift


def _query(name: str, request: dict[str, Any], limit: int | None) -> Iterator[dict[str, Any]]:
    """The items of every page of ``request`` until ``limit`` items; a missing table is empty."""
    for page in query_pages(name, limit=limit, **request):
        yield from page


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
        name = EVENTS.period_table_name(pid)
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


def event_table(t: str, period: PeriodKind = DEFAULT_PERIOD) -> str:
    """The events table that holds (or held) the event of sort key ``t``; ValueError for a key of no such table."""
    return EVENTS.period_table_name(period_id(period, parse_time_key(t)))


@capacity.access_pattern("events.get")
def event_get(*, stream: str, t: str, period: PeriodKind = DEFAULT_PERIOD) -> Event | None:
    """GetItem of one event by its key, consistent — 1 RCU per started 4 KB of the event (1 when there is none).

    Its table is the period's ``t`` falls in (``event_table``: ValueError for a key of no period, checked before
    any request); a table that does not exist (archived and dropped, or a period nobody wrote to) holds no event.
    """
    name = event_table(t, period)
    try:
        answer = connection.client().get_item(
            TableName=name,
            Key={"s": {"S": stream}, "t": {"S": t}},
            ConsistentRead=True,
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return None
        raise
    item = answer.get("Item")
    return event_from_item(item, name) if item else None


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
    name = EVENTS.table_name(period, datetime(day.year, day.month, day.day, tzinfo=UTC))

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


@capacity.access_pattern("events.stream_after")
def stream_events_after(*, stream: str, after: str, limit: int, period: PeriodKind = DEFAULT_PERIOD) -> list[Event]:
    """The stream's events just after sort key ``after``, oldest first, at most ``limit`` — one consistent Query
    page (``Limit``) per events table from ``after``'s period on, stopping when ``limit`` are in hand: 1 RCU per
    started 4 KB read (at least 1 a table read). ListTables is free; a table that does not exist is empty.

    For removing a change from an issue's history (the later edits it reaches): bounded by ``limit``.
    """
    if limit < 1:
        raise ValueError(f"limit must be ≥ 1, got {limit}")
    start = parse_time_key(after.partition("#")[0])
    values = {":s": {"S": stream}, ":after": {"S": after}}
    found: list[Event] = []
    for table in sorted(list_event_tables(), key=lambda table: table.start):
        if table.kind != period or table.end <= start:
            continue
        request = {
            "KeyConditionExpression": "s = :s AND t > :after",
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
        }
        page = next(iter(query_pages(table.name, limit=limit - len(found), **request)), [])  # one page a table
        found.extend(event_from_item(item, table.name) for item in page)
        if len(found) >= limit:
            break
    return found


@capacity.access_pattern("events.stream_all")
def stream_events_all(*, stream: str, since: str = "") -> list[Event]:
    """Query PK=stream (AND t >= ``since``), oldest first, every page, in each events table that still exists
    and whose period ends after ``since`` — consistent (what was just written is seen): 1 RCU per started 4 KB
    read, at least 1 per table (an event is ~300 B: ~13 per RCU).

    For deleting (a comment's events, an issue's): bounded by that one stream's events since
    ``since`` (a time-key prefix such as a comment's key), never a Scan. ListTables is free. Periods
    already archived and dropped are out of reach (their archives are rewritten only by offboarding).
    """
    start = parse_time_key(since.partition("#")[0]) if since else None
    condition, values = "s = :s", {":s": {"S": stream}}
    if since:
        condition, values = condition + " AND t >= :since", {**values, ":since": {"S": since}}
    found: list[Event] = []
    for table in list_event_tables():
        if start is not None and table.end <= start:
            continue
        request = {"KeyConditionExpression": condition, "ExpressionAttributeValues": values, "ConsistentRead": True}
        found.extend(event_from_item(item, table.name) for item in _query(table.name, request, None))
    return found
