"""An endpoint's delivery log: newest first a page at a time, one delivery, and sending one again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.errors import InvalidTransition, NotFound
from ddbmodels.core.keys import time_key
from ddbmodels.core.tables import error_code
from ddbmodels.webhooks.model import (
    LOG_PAGE,
    PENDING,
    DeliveryItem,
    delivery_of,
    delivery_sort,
    due_key,
    endpoint_key,
)

Raw = dict[str, Any]
PAGE_MAX = 100


def _table() -> str:
    return connection.table_name("webhooks")


def _key(tenant: str, endpoint_id: str, event_key: str) -> Raw:
    return {"pk": {"S": endpoint_key(tenant, endpoint_id)}, "s": {"S": delivery_sort(event_key)}}


@capacity.access_pattern("webhooks.delivery_page")
def delivery_page(
    tenant: str, endpoint_id: str, *, before: str | None = None, size: int = LOG_PAGE
) -> tuple[list[DeliveryItem], str | None]:
    """Query pk = "<team>#hooks#<id>", descending, Limit ``size`` (after the event key ``before``) — 0.5 RCU per
    4 KB read (≤ 2.5 KB a delivery: ≤ 8 RCU for 25, ≈ 2 for typical ones), one request.

    The deliveries newest first, and the event key to pass as ``before`` for the next page (None: the last
    page; a page that ends exactly at the last delivery may name one more, empty page).
    """
    if not 1 <= size <= PAGE_MAX:
        raise ValueError(f"a delivery page holds 1 to {PAGE_MAX} deliveries, not {size}")
    request: Raw = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :p AND begins_with(s, :d)",
        "ExpressionAttributeValues": {":p": {"S": endpoint_key(tenant, endpoint_id)}, ":d": {"S": "d#"}},
        "ScanIndexForward": False,
        "Limit": size,
        "ReturnConsumedCapacity": "TOTAL",
    }
    if before is not None:
        request["ExclusiveStartKey"] = _key(tenant, endpoint_id, before)
    page = connection.client().query(**request)
    items = [delivery_of(tenant, item) for item in page.get("Items", [])]
    after = page.get("LastEvaluatedKey")
    return items, (after["s"]["S"].removeprefix("d#") if after else None)


@capacity.access_pattern("webhooks.delivery_get")
def delivery_get(tenant: str, endpoint_id: str, event_key: str, *, consistent: bool = False) -> DeliveryItem | None:
    """GetItem pk = "<team>#hooks#<id>", s = "d#<event key>" — 0.5 RCU per 4 KB (1 consistent); None: no such one."""
    answer = connection.client().get_item(
        TableName=_table(),
        Key=_key(tenant, endpoint_id, event_key),
        ConsistentRead=consistent,
        ReturnConsumedCapacity="TOTAL",
    )
    return delivery_of(tenant, answer["Item"]) if "Item" in answer else None


@capacity.access_pattern("webhooks.redeliver")
def delivery_redeliver(tenant: str, endpoint_id: str, event_key: str, *, now: datetime, fence: str) -> DeliveryItem:
    """UpdateItem ``SET st = pending, na = now, dk, rk = fence`` where it exists, st <> pending and rk <> fence,
    ``ALL_NEW`` — 1 WCU per KB (≤ 3) + 1 due entry: the delivery, due now (the sender's next sweep or task sends it,
    same webhook-id).

    ``fence`` names the request (an API request's scoped idempotency key, or a fresh token): a request whose
    answer was lost, resent by botocore or by its client, finds its own fence (a consistent GetItem, 1 RCU) and gets
    the delivery as it is now, its own success, never put back a second time. Its attempts go on counting (the
    sender fences each attempt on ``at``). InvalidTransition when another request finds it pending (being sent or
    waiting for its next try: nothing written), NotFound when there is none (the same GetItem tells which).
    """
    key = _key(tenant, endpoint_id, event_key)
    try:
        answer = connection.client().update_item(
            TableName=_table(),
            Key=key,
            UpdateExpression="SET st = :pending, na = :now, dk = :dk, rk = :rk",
            ConditionExpression="attribute_exists(s) AND st <> :pending AND (attribute_not_exists(rk) OR rk <> :rk)",
            ExpressionAttributeValues={
                ":pending": {"S": PENDING},
                ":now": {"S": time_key(now)},
                ":dk": {"S": due_key(key["pk"]["S"], key["s"]["S"])},
                ":rk": {"S": fence},
            },
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        found = (
            connection.client()
            .get_item(TableName=_table(), Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
            .get("Item")
        )
        if found is None:
            raise NotFound("No such delivery.") from error
        if found.get("rk", {}).get("S") == fence:  # this request put it back already: its answer was lost
            return delivery_of(tenant, found)
        raise InvalidTransition("This delivery is being sent already: wait for its outcome.") from error
    return delivery_of(tenant, answer["Attributes"])
