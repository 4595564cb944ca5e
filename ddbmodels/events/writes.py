"""Writing events: one PutItem into the table of the event's period, creating that table when due."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import batch, capacity, connection
from ddbmodels.core.keys import as_utc, utcnow
from ddbmodels.core.tables import DEFAULT_THROUGHPUT, PAY_PER_REQUEST, error_code
from ddbmodels.events.model import (
    DEFAULT_PERIOD,
    DEFAULT_SHARDS,
    EVENTS,
    Event,
    PeriodClosed,
    event_from_item,
    event_item,
    sort_key_time,
    to_attribute,
)
from ddbmodels.patterns.time_series import PeriodKind, period_id, period_shift, period_start


@capacity.access_pattern("events.create_table")
def create_events_table(
    name: str,
    *,
    billing_mode: str = PAY_PER_REQUEST,
    throughput: tuple[int, int] = DEFAULT_THROUGHPUT,
    wait: bool = True,
) -> bool:
    """CreateTable (free), idempotent: True when this call created it; then waits for ACTIVE."""
    return EVENTS.create(name, billing_mode=billing_mode, throughput=throughput, wait=wait)


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
    key: str | None = None,
) -> Event:
    """PutItem into the table of ``when``'s period — 1 WCU per started KB, plus as much for ``by_day``.

    Without ``key`` the sort key is new and unique (random suffix), so no condition is needed. With ``key``
    (a creation's deterministic key, ``model.creation_key``) the event is at that key's time (``when`` is
    ignored) and the put is ``attribute_not_exists(t)``: the same change recorded again (a replay whose first
    answer was lost, or botocore retrying a put whose answer was lost) writes nothing and returns the event
    as this call would have written it. Same cost when it writes; a refused put is charged 1 WCU (no index
    write). When the table does not
    exist yet (``rotate`` normally creates it ahead of time) it is created here — idempotently,
    with ``billing_mode``/``throughput`` — and the write is retried. Only the current, next and
    previous periods (by the clock) are created on the fly: an older table may have been
    archived and dropped, and must not come back half empty (PeriodClosed).
    """
    now = utcnow()
    when = sort_key_time(key) if key else (now if when is None else as_utc(when))
    item = event_item(
        stream=stream, kind=kind, actor=actor, tenant=tenant, data=data, when=when, shards=shards, key=key
    )
    name = EVENTS.table_name(period, when)
    client = connection.client()
    once = {"ConditionExpression": "attribute_not_exists(t)"} if key else {}
    for attempt in (1, 2):
        try:
            client.put_item(TableName=name, Item=item, ReturnConsumedCapacity="TOTAL", **once)
            return event_from_item(item, name)
        except ClientError as error:
            if key and error_code(error) == "ConditionalCheckFailedException":
                return event_from_item(item, name)  # recorded already: by an earlier call, or this one's lost answer
            if error_code(error) != "ResourceNotFoundException" or attempt == 2:
                raise
        if not period_shift(period, now, -1) <= period_start(period, when) <= period_shift(period, now, 1):
            raise PeriodClosed(f"no events table for period {period_id(period, when)}", table=name)
        create_events_table(name, billing_mode=billing_mode, throughput=throughput)
    raise AssertionError("unreachable")


def events_put_many(rows: Iterable[tuple[str, dict[str, Any]]]) -> int:
    """BatchWriteItem of (events table, ``event_item``) rows, 25 requests each — 1 WCU per started KB of
    each event + its ``by_day`` entry; the number written. The tables must exist (``create_events_table``).
    """
    return batch.batch_write(batch.put(table, item) for table, item in rows)


@capacity.access_pattern("events.redact")
def event_redact(*, table: str, stream: str, t: str, data: Mapping[str, Any]) -> bool:
    """UpdateItem ``SET data = :data`` if the event exists — 1 WCU per started KB, plus as much for ``by_day``.

    For deleting: what the event said is replaced by ``data`` (a comment's excerpt, an issue's
    titles taken out); the event stays where it was. Idempotent; False when there is no such event.
    """
    try:
        connection.client().update_item(
            TableName=table,
            Key={"s": {"S": stream}, "t": {"S": t}},
            UpdateExpression="SET #data = :data",
            ConditionExpression="attribute_exists(s)",
            ExpressionAttributeNames={"#data": "data"},
            ExpressionAttributeValues={":data": to_attribute(dict(data))},
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) in ("ConditionalCheckFailedException", "ResourceNotFoundException"):
            return False
        raise
    return True


@capacity.access_pattern("events.delete_many")
def events_delete_many(rows: Iterable[tuple[str, str, str]]) -> int:
    """BatchWriteItem of DeleteRequests for (events table, stream, t), 25 a request — 1 WCU each + 1 for its
    ``by_day`` entry; deleting a missing event costs the same and is harmless. The number of requests sent.
    """
    return batch.batch_write(batch.delete(table, {"s": {"S": stream}, "t": {"S": t}}) for table, stream, t in rows)
