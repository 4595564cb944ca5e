"""Tables made with the low-level client, so they look like anybody's tables, not like the models'.

The distinct-keys tests (ddbmodels and the command) make them: a hash key ``pk`` of any type, an
optional sort key ``sk``, optionally a sparse KEYS_ONLY index whose hash key is set on one
static item per collection only. The ``tables`` fixture (tests/conftest.py) deletes them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import ddbmodels
from ddbmodels.core import connection

INDEX = "collections"
INDEX_KEY = "static_pk"  # set on one static item per collection only: the sparse index's hash key


def attribute(kind: str, value: Any) -> dict[str, Any]:
    """A Python value as a DynamoDB AttributeValue of type ``kind``."""
    if kind == "N":
        return {"N": str(value)}
    return {kind: value}


def table_name() -> str:
    return f"{ddbmodels.current().table_prefix}dk-{uuid.uuid4().hex[:12]}"


def create_table(hash_type: str = "S", range_type: str | None = "S", *, index: bool = False) -> str:
    """A table with key ``pk`` (and sort key ``sk``), optionally a sparse KEYS_ONLY index; ACTIVE when returned."""
    client = connection.client()
    name = table_name()
    attributes = [{"AttributeName": "pk", "AttributeType": hash_type}]
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if range_type is not None:
        attributes.append({"AttributeName": "sk", "AttributeType": range_type})
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
    extra: dict[str, Any] = {}
    if index:
        attributes.append({"AttributeName": INDEX_KEY, "AttributeType": hash_type})
        extra["GlobalSecondaryIndexes"] = [
            {
                "IndexName": INDEX,
                "KeySchema": [{"AttributeName": INDEX_KEY, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ]
    client.create_table(
        TableName=name, AttributeDefinitions=attributes, KeySchema=schema, BillingMode="PAY_PER_REQUEST", **extra
    )
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})
    return name


def put_items(name: str, items: Sequence[dict[str, Any]]) -> None:
    """BatchWriteItem, 25 at a time, until nothing is left unprocessed."""
    client = connection.client()
    for start in range(0, len(items), 25):
        requests: dict[str, Any] = {name: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]}
        while requests:
            requests = client.batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}


def collection_items(
    hash_type: str,
    key: Any,
    range_type: str | None,
    sort_keys: Sequence[Any],
    *,
    size: int = 100,
    static: bool = False,
    first_size: int | None = None,
) -> list[dict[str, Any]]:
    """The items of one collection: one per sort key, ``size`` bytes of payload; the first one static."""
    items = []
    for position, sort_key in enumerate(sort_keys):
        item = {
            "pk": attribute(hash_type, key),
            "d": {"S": "x" * (first_size if position == 0 and first_size else size)},
        }
        if range_type is not None:
            item["sk"] = attribute(range_type, sort_key)
        if static and position == 0:
            item[INDEX_KEY] = attribute(hash_type, key)
        items.append(item)
    return items
