"""Copying the previous layout's records (``LEGACY``: PK t = team, SK k = "<kind>#<key>") into this table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ddbmodels.core import connection, keys
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.idempotency.model import LEGACY, CreationRecord, shard_of

PUT_WCU = 3  # a record's conditional PutItem with its by_tenant entry, as the upgrade budgets it


@dataclass(frozen=True)
class CopiedPage:
    """One Scan page of the old table: records read, copied, expired, and the key to go on from (None: the end)."""

    read: int
    copied: int
    expired: int
    start: dict[str, Any] | None


def legacy_copy(
    *,
    start: dict[str, Any] | None = None,
    page_size: int = 100,
    bucket: TokenBucket | None = None,
    before_writes: Callable[[dict[str, Any] | None], None] = lambda start: None,
) -> Iterator[CopiedPage]:
    """Scan the old table, consistent, ``page_size`` a page — 1 RCU per 4 KB; PutItem each unexpired record
    here if its key is new (``attribute_not_exists(k)``: ≈ 3 WCU with its index entry, taken from ``bucket``).

    ``before_writes(start)`` runs after each Scan and before its puts, with the key that page began at
    (the caller's checkpoint and fence). A record this table already holds (an earlier run copied
    it) is left as it is. Resumable from any page's ``start``.
    """
    client = connection.client()
    table = connection.table_name(LEGACY)
    now = keys.utcnow().timestamp()
    while True:
        request: dict[str, Any] = {"TableName": table, "ConsistentRead": True, "Limit": page_size}
        if start:
            request["ExclusiveStartKey"] = start
        page = client.scan(**request, ReturnConsumedCapacity="TOTAL")
        before_writes(start)
        read = copied = expired = 0
        for item in page.get("Items", []):
            read += 1
            if "x" in item and float(item["x"]["N"]) < now:
                expired += 1
                continue
            tenant, sort = item["t"]["S"], item["k"]["S"]
            pk = f"{tenant}#{sort}"
            record = {**{k: v for k, v in item.items() if k not in ("t", "k")}}
            record.update(k={"S": pk}, ts={"S": shard_of(tenant, pk)})
            if bucket is not None:
                bucket.take(PUT_WCU)
            try:
                client.put_item(
                    TableName=CreationRecord.Meta.table_name,
                    Item=record,
                    ConditionExpression="attribute_not_exists(k)",
                    ReturnConsumedCapacity="TOTAL",
                )
                copied += 1
            except client.exceptions.ConditionalCheckFailedException:
                pass  # a record this key already has (copied by an earlier run)
        start = page.get("LastEvaluatedKey")
        yield CopiedPage(read=read, copied=copied, expired=expired, start=start)
        if not start:
            return
