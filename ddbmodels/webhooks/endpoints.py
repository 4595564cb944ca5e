"""A team's endpoints: registered once per request key, listed in one Query, edited and deleted on their version."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import ChangedSinceRead, NotFound
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import time_key, utcnow
from ddbmodels.core.tables import error_code
from ddbmodels.webhooks.model import (
    ACTIVE,
    DELETED,
    DISABLED,
    ENDPOINT_PREFIX,
    EndpointItem,
    endpoint_of,
    endpoint_sort,
    team_key,
)

Raw = dict[str, Any]
ENDPOINTS_READ = 200  # live endpoints (≤ 10) and the tombstones of the last delivery days: one page, bounded


def _table() -> str:
    return connection.table_name("webhooks")


def _key(tenant: str, endpoint_id: str) -> Raw:
    return {"pk": {"S": team_key(tenant)}, "s": {"S": endpoint_sort(endpoint_id)}}


def _get(tenant: str, endpoint_id: str, *, consistent: bool) -> Raw | None:
    answer = connection.client().get_item(
        TableName=_table(), Key=_key(tenant, endpoint_id), ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL"
    )
    item: Raw | None = answer.get("Item")
    return item


@capacity.access_pattern("webhooks.endpoint_put")
def endpoint_put(
    tenant: str,
    endpoint_id: str,
    *,
    url: str,
    events: list[str],
    secret: str,
    description: str,
    created_by: str,
    fingerprint: str | None = None,
) -> tuple[EndpointItem, bool]:
    """PutItem ``attribute_not_exists(s)`` — 1 WCU (≈ 300 B): the endpoint and True, registered now.

    The id comes from the request's idempotency key (``endpoint_id_for``): a request sent again finds its
    endpoint (consistent GetItem, 1 RCU) and gets it with False — as it is now, possibly edited, disabled or
    deleted (a tombstone: the caller says so), never a second one. ``fingerprint`` (an API request's) is kept,
    so the caller can tell the same request sent again from another one under the same key.
    """
    now = time_key(utcnow())
    item: Raw = {
        **_key(tenant, endpoint_id),
        "u": {"S": url},
        "ev": {"SS": sorted(set(events))},
        "sc": {"S": secret},
        "st": {"S": ACTIVE},
        "cb": {"S": created_by},
        "ca": {"S": now},
        "ua": {"S": now},
        "v": {"N": "1"},
    }
    if description:
        item["dr"] = {"S": description}
    if fingerprint:
        item["h"] = {"S": fingerprint}
    try:
        connection.client().put_item(
            TableName=_table(), Item=item, ConditionExpression="attribute_not_exists(s)", ReturnConsumedCapacity="TOTAL"
        )
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        found = _get(tenant, endpoint_id, consistent=True)
        if found is None:  # expired between the two calls (a tombstone's TTL): as gone as a deleted one
            raise NotFound("This request registered an endpoint that was deleted since.") from error
        return endpoint_of(tenant, found), False
    return endpoint_of(tenant, item), True


@capacity.access_pattern("webhooks.endpoint_get")
def endpoint_get(
    tenant: str, endpoint_id: str, *, consistent: bool = False, tombstone: bool = False
) -> EndpointItem | None:
    """GetItem pk = "<team>#hooks", s = "e#<id>" — 0.5 RCU (1 consistent): the endpoint, None when there is none.

    A deleted endpoint is None too, unless ``tombstone`` (a create sent again must tell "deleted" from "never").
    """
    item = _get(tenant, endpoint_id, consistent=consistent)
    if item is None:
        return None
    endpoint = endpoint_of(tenant, item)
    return endpoint if tombstone or endpoint.status != DELETED else None


@capacity.access_pattern("webhooks.endpoints")
def endpoints_of(tenant: str, *, consistent: bool = False) -> list[EndpointItem]:
    """Query pk = "<team>#hooks", s BETWEEN "e#" AND "e#~", ≤ 200 — 0.5 RCU per 4 KB (1 consistent), one request:
    the team's live endpoints, oldest first.

    The page holds the tombstones too (≈ 150 B each, kept the delivery days + 2 after a delete), dropped here:
    a filter over a bounded page (≤ 10 live endpoints, ≈ 300 B each: 10 live and 7 tombstones fit in 4 KB).
    """
    request: Raw = {
        "KeyConditionExpression": "pk = :p AND s BETWEEN :a AND :b",
        "ExpressionAttributeValues": {
            ":p": {"S": team_key(tenant)},
            ":a": {"S": ENDPOINT_PREFIX},
            ":b": {"S": ENDPOINT_PREFIX + "~"},
        },
        "ConsistentRead": consistent,
    }
    found = [
        endpoint_of(tenant, item) for page in query_pages(_table(), limit=ENDPOINTS_READ, **request) for item in page
    ]
    return sorted((e for e in found if e.status != DELETED), key=lambda e: (e.created_at, e.id))


def _refused(tenant: str, endpoint_id: str, fence: str) -> EndpointItem:
    """After a refused edit or delete (a consistent GetItem, 1 RCU): the endpoint when this call's own write did it
    (its answer lost, botocore sent it again: the item holds this call's ``rk``); else ChangedSinceRead."""
    current = _get(tenant, endpoint_id, consistent=True)
    if current is not None and current.get("rk", {}).get("S") == fence:
        return endpoint_of(tenant, current)
    if current is None or endpoint_of(tenant, current).status == DELETED:
        raise ChangedSinceRead("This endpoint was deleted.", current=None)
    now = endpoint_of(tenant, current)
    raise ChangedSinceRead("This endpoint was changed since it was read.", current=str(now.version))


@capacity.access_pattern("webhooks.endpoint_update")
def endpoint_update(
    tenant: str,
    endpoint_id: str,
    *,
    expected_version: int,
    url: str | None = None,
    events: list[str] | None = None,
    description: str | None = None,
    active: bool | None = None,
    disabled_why: str = "",
) -> EndpointItem:
    """UpdateItem conditioned on ``v`` and not deleted, ``ALL_NEW`` — 1 WCU: the endpoint after the change.

    None leaves a field as it is; ``active`` True enables it (clearing why it was disabled and since when it
    fails), False disables it with ``disabled_why``. ChangedSinceRead (a consistent GetItem, 1 RCU, tells its
    current version) when it moved on or was deleted: nothing written. The write is fenced (``rk``, a token of
    this call): when its answer is lost and botocore's resend is refused, the same GetItem finds the call's own
    change and returns it, a success, not a "changed since".
    """
    fence = uuid.uuid4().hex
    sets = ["ua = :now", "v = v + :one", "rk = :rk"]
    removes: list[str] = []
    values: Raw = {
        ":now": {"S": time_key(utcnow())},
        ":one": {"N": "1"},
        ":v": {"N": str(expected_version)},
        ":deleted": {"S": DELETED},
        ":rk": {"S": fence},
    }
    if url is not None:
        sets.append("u = :u")
        values[":u"] = {"S": url}
    if events is not None:
        sets.append("ev = :ev")
        values[":ev"] = {"SS": sorted(set(events))}
    if description is not None:
        if description:
            sets.append("dr = :dr")
            values[":dr"] = {"S": description}
        else:
            removes.append("dr")
    if active is True:
        sets.append("st = :st")
        values[":st"] = {"S": ACTIVE}
        removes += ["dw", "fs"]
    elif active is False:
        sets.append("st = :st")
        values[":st"] = {"S": DISABLED}
        if disabled_why:
            sets.append("dw = :dw")
            values[":dw"] = {"S": disabled_why}
    expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
    try:
        answer = connection.client().update_item(
            TableName=_table(),
            Key=_key(tenant, endpoint_id),
            UpdateExpression=expression,
            ConditionExpression="v = :v AND st <> :deleted",
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        return _refused(tenant, endpoint_id, fence)
    return endpoint_of(tenant, answer["Attributes"])


@capacity.access_pattern("webhooks.endpoint_tombstone")
def endpoint_tombstone(tenant: str, endpoint_id: str, *, expected_version: int, expires: datetime) -> EndpointItem:
    """UpdateItem to a tombstone on ``v`` — 1 WCU: st = deleted, its secret, URL and events removed, TTL ``expires``.

    The tombstone keeps the team partition naming the endpoint's partition until its deliveries have expired
    (``expires``: after the last of them; offboarding reads through it). No delivery is sent to it any more.
    ChangedSinceRead when it moved on or was deleted already: nothing written (fenced as ``endpoint_update``: its
    own write whose answer was lost is its success).
    """
    fence = uuid.uuid4().hex
    try:
        answer = connection.client().update_item(
            TableName=_table(),
            Key=_key(tenant, endpoint_id),
            UpdateExpression=(
                "SET st = :deleted, ua = :now, v = v + :one, x = :x, rk = :rk REMOVE sc, u, ev, dr, dw, fs, h"
            ),
            ConditionExpression="v = :v AND st <> :deleted",
            ExpressionAttributeValues={
                ":deleted": {"S": DELETED},
                ":now": {"S": time_key(utcnow())},
                ":one": {"N": "1"},
                ":v": {"N": str(expected_version)},
                ":x": {"N": str(int(expires.timestamp()))},
                ":rk": {"S": fence},
            },
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        return _refused(tenant, endpoint_id, fence)
    return endpoint_of(tenant, answer["Attributes"])
