"""A provisioned table under the app's prefix, for the partition planner's command and admin tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ddbmodels.core import connection


@contextmanager
def provisioned_table(rcu: int, wcu: int, *, index_rcu: int = 0, index_wcu: int = 0) -> Iterator[str]:
    """A table with hash key ``pk`` provisioned at rcu/wcu (and a GSI ``by_g`` when index_rcu is set); deleted after."""
    name = f"{connection.current().table_prefix}plan-{uuid.uuid4().hex[:8]}"
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    extra: dict[str, Any] = {}
    if index_rcu:
        attributes.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": index_rcu, "WriteCapacityUnits": index_wcu},
            }
        ]
    client = connection.client()
    client.create_table(
        TableName=name,
        AttributeDefinitions=attributes,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
        **extra,
    )
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})
    try:
        yield name
    finally:
        client.delete_table(TableName=name)
