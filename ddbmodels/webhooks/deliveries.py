"""A delivery's life: put once per endpoint and event, claimed for an attempt, finished, found when due.

    delivery_put      PutItem attribute_not_exists(s): one delivery per (endpoint, event), pending, due now
    delivery_claim    UpdateItem SET at = at + 1, na = lease WHERE st = pending AND at = :seen — the attempt's
                      fence: two workers holding the same task (acks_late, a sweep) cannot both send attempt n
    delivery_finish   UpdateItem WHERE st = pending AND at = :n — delivered / failed for good (REMOVE dk: out
                      of the due index) or due again at ``na`` (the retry schedule)
    due_page          Query due dk = "due#<n>", na <= now: the deliveries whose time came (or whose attempt's
                      lease ran out: a worker that died mid-attempt is retried, with the same webhook-id)
    endpoint_failing  UpdateItem SET fs = if_not_exists(fs, now) on the endpoint; endpoint_recovered REMOVE fs
    endpoint_disable  UpdateItem SET st = disabled, dw, v + 1 WHERE st = active

Writes go through the low-level client (the table stores two kinds of item; ``model`` maps them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.keys import time_key
from ddbmodels.webhooks.model import (
    ACTIVE,
    ATTEMPTS_KEPT,
    DELIVERED,
    DISABLED,
    DUE_INDEX,
    FAILED,
    PAYLOAD_MAX,
    PENDING,
    Attempt,
    DeliveryItem,
    delivery_of,
    delivery_sort,
    due_key,
    endpoint_key,
    endpoint_sort,
    message_id,
    team_key,
)

Raw = dict[str, Any]
ANSWER_MAX = 512  # bytes kept of the last answer (its first bytes, or why none came)
DUE_LIMIT = 200


@dataclass(frozen=True)
class Due:
    """A pending delivery whose time came, as the due index holds it (keys and attempts made)."""

    tenant: str
    endpoint_id: str
    event_key: str
    attempts: int


def _table() -> str:
    return connection.table_name("webhooks")


def _refused(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _key(tenant: str, endpoint_id: str, event_key: str) -> Raw:
    return {"pk": {"S": endpoint_key(tenant, endpoint_id)}, "s": {"S": delivery_sort(event_key)}}


@capacity.access_pattern("webhooks.delivery_put")
def delivery_put(
    *, tenant: str, endpoint_id: str, event_key: str, type: str, payload: str, now: datetime, keep_days: int
) -> bool:
    """PutItem attribute_not_exists(s) — 1 WCU per KB (≤ 3: the payload ≤ 2 KB) + 1 WCU for its due entry.

    The delivery of one event to one endpoint, pending and due ``now``, kept ``keep_days`` (TTL); False (nothing
    written) when it exists already: a change emitted twice is delivered once. ValueError for a payload over
    ``PAYLOAD_MAX`` bytes (the caller fits it).
    """
    if len(payload.encode()) > PAYLOAD_MAX:
        raise ValueError(f"a delivery's payload holds at most {PAYLOAD_MAX} bytes")
    key = _key(tenant, endpoint_id, event_key)
    item: Raw = {
        **key,
        "m": {"S": message_id(endpoint_id, event_key)},
        "ty": {"S": type},
        "p": {"S": payload},
        "st": {"S": PENDING},
        "at": {"N": "0"},
        "na": {"S": time_key(now)},
        "dk": {"S": due_key(key["pk"]["S"], key["s"]["S"])},
        "ca": {"S": time_key(now)},
        "x": {"N": str(int((now + timedelta(days=keep_days)).timestamp()))},
    }
    try:
        connection.client().put_item(
            TableName=_table(),
            Item=item,
            ConditionExpression="attribute_not_exists(s)",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if _refused(error):
            return False
        raise
    return True


@capacity.access_pattern("webhooks.delivery_claim")
def delivery_claim(
    *, tenant: str, endpoint_id: str, event_key: str, seen: int, lease_until: datetime
) -> DeliveryItem | None:
    """UpdateItem SET at = at + 1, na = lease WHERE st = pending AND at = :seen — 1 WCU per KB (≤ 3) + 2 WCU
    for its due entry (``na`` is the index's sort key: moved).

    Attempt ``seen + 1`` is this caller's (the delivery as it is now, ``at`` counting it), or None: another
    worker claimed it, or it is not pending any more. Until ``lease_until`` the sweep leaves it alone; a worker
    that dies mid-attempt leaves it due then.
    """
    try:
        answer = connection.client().update_item(
            TableName=_table(),
            Key=_key(tenant, endpoint_id, event_key),
            UpdateExpression="SET #at = #at + :one, na = :lease",
            ConditionExpression="st = :pending AND #at = :seen",
            ExpressionAttributeNames={"#at": "at"},
            ExpressionAttributeValues={
                ":one": {"N": "1"},
                ":lease": {"S": time_key(lease_until)},
                ":pending": {"S": PENDING},
                ":seen": {"N": str(seen)},
            },
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if _refused(error):
            return None
        raise
    return delivery_of(tenant, answer["Attributes"])


@capacity.access_pattern("webhooks.delivery_finish")
def delivery_finish(
    *,
    delivery: DeliveryItem,
    attempt: Attempt,
    answer: str,
    next_attempt: datetime | None,
    final: bool = False,
) -> str | None:
    """UpdateItem WHERE st = pending AND at = :n — 1 WCU per KB (≤ 3) + 1–2 WCU for its due entry (moved, or
    removed when final).

    Ends attempt n = ``delivery.attempts`` (the claimed delivery): a 2xx ``attempt`` delivers it; else it is due
    again at ``next_attempt``, or, with ``final`` (no attempt left), failed. Keeps the last ``ATTEMPTS_KEPT``
    attempts and the answer's first bytes (or why none came). The state written, or None when attempt n is no
    longer the delivery's (redelivered and claimed again meanwhile: this attempt's end is not written).
    """
    recent = [*delivery.recent, attempt][-ATTEMPTS_KEPT:]
    entries = [{"M": {"t": {"S": time_key(a.at)}, "c": {"N": str(a.code)}, "ms": {"N": str(a.ms)}}} for a in recent]
    kept = answer.encode()[:ANSWER_MAX].decode("utf-8", "ignore")
    values: Raw = {
        ":al": {"L": entries},
        ":lc": {"N": str(attempt.code)},
        ":ld": {"N": str(attempt.ms)},
        ":le": {"S": kept},
        ":pending": {"S": PENDING},
        ":n": {"N": str(delivery.attempts)},
    }
    sets = ["al = :al", "lc = :lc", "ld = :ld", "le = :le"]
    if 200 <= attempt.code < 300:
        state, removes = DELIVERED, ["dk", "na"]
        sets += ["st = :st", "da = :da"]
        values |= {":st": {"S": DELIVERED}, ":da": {"S": time_key(attempt.at)}}
    elif final or next_attempt is None:
        state, removes = FAILED, ["dk", "na"]
        sets.append("st = :st")
        values[":st"] = {"S": FAILED}
    else:
        state, removes = PENDING, []
        sets.append("na = :na")
        values[":na"] = {"S": time_key(next_attempt)}
    expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
    try:
        connection.client().update_item(
            TableName=_table(),
            Key=_key(delivery.tenant, delivery.endpoint_id, delivery.event_key),
            UpdateExpression=expression,
            ConditionExpression="st = :pending AND #at = :n",
            ExpressionAttributeNames={"#at": "at"},
            ExpressionAttributeValues=values,
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if _refused(error):
            return None
        raise
    return state


@capacity.access_pattern("webhooks.due")
def due_page(shard: str, now: datetime, limit: int = DUE_LIMIT) -> list[Due]:
    """Query due dk = shard, na <= now, Limit ``limit`` (KEYS_ONLY + at: ≈ 100 B an entry) — 0.5 RCU per 4 KB,
    one request: the pending deliveries of one shard whose time came, soonest first."""
    found = connection.client().query(
        TableName=_table(),
        IndexName=DUE_INDEX,
        KeyConditionExpression="dk = :shard AND na <= :now",
        ExpressionAttributeValues={":shard": {"S": shard}, ":now": {"S": time_key(now)}},
        Limit=limit,
        ReturnConsumedCapacity="TOTAL",
    )
    due = []
    for item in found.get("Items", []):
        tenant, _, endpoint_id = item["pk"]["S"].rpartition("#hooks#")
        due.append(
            Due(
                tenant=tenant,
                endpoint_id=endpoint_id,
                event_key=item["s"]["S"].removeprefix("d#"),
                attempts=int(item.get("at", {}).get("N", "0")),
            )
        )
    return due


def _endpoint_update(tenant: str, endpoint_id: str, **request: Any) -> bool:
    try:
        connection.client().update_item(
            TableName=_table(),
            Key={"pk": {"S": team_key(tenant)}, "s": {"S": endpoint_sort(endpoint_id)}},
            ReturnConsumedCapacity="TOTAL",
            **request,
        )
    except ClientError as error:
        if _refused(error):
            return False
        raise
    return True


@capacity.access_pattern("webhooks.endpoint_failing")
def endpoint_failing(*, tenant: str, endpoint_id: str, since: datetime) -> bool:
    """UpdateItem SET fs = since WHERE st = active AND attribute_not_exists(fs) — 1 WCU (the first failure only:
    the caller writes it when the endpoint it read was not failing). ``v`` is not moved: no owner's edit is lost."""
    return _endpoint_update(
        tenant,
        endpoint_id,
        UpdateExpression="SET fs = :since",
        ConditionExpression="st = :active AND attribute_not_exists(fs)",
        ExpressionAttributeValues={":since": {"S": time_key(since)}, ":active": {"S": ACTIVE}},
    )


@capacity.access_pattern("webhooks.endpoint_recovered")
def endpoint_recovered(*, tenant: str, endpoint_id: str) -> bool:
    """UpdateItem REMOVE fs WHERE attribute_exists(fs) — 1 WCU (written only after a failure: a success on a
    failing endpoint)."""
    return _endpoint_update(
        tenant, endpoint_id, UpdateExpression="REMOVE fs", ConditionExpression="attribute_exists(fs)"
    )


@capacity.access_pattern("webhooks.endpoint_disable")
def endpoint_disable(*, tenant: str, endpoint_id: str, why: str, now: datetime) -> bool:
    """UpdateItem SET st = disabled, dw = why, ua, v = v + 1 REMOVE fs WHERE st = active — 1 WCU. False when it
    was not active (disabled or deleted meanwhile: nothing written, nobody told twice)."""
    return _endpoint_update(
        tenant,
        endpoint_id,
        UpdateExpression="SET st = :disabled, dw = :why, ua = :now, v = v + :one REMOVE fs",
        ConditionExpression="st = :active",
        ExpressionAttributeValues={
            ":disabled": {"S": DISABLED},
            ":why": {"S": why[:200]},
            ":now": {"S": time_key(now)},
            ":one": {"N": "1"},
            ":active": {"S": ACTIVE},
        },
    )
