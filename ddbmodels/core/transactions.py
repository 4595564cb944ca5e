"""TransactWriteItems with raw items beside models: PynamoDB's TransactWrite, plus put/delete of DynamoDB JSON.

Some items are written as raw attribute maps (an issue's ``terms`` entries copy attributes no
model declares); they join the same transaction as the model writes.
"""

from __future__ import annotations

from typing import Any

from pynamodb.transactions import TransactWrite


class RawTransactWrite(TransactWrite):
    """A TransactWrite that also takes raw Put and Delete operations."""

    def put_raw(self, table_name: str, item: dict[str, Any]) -> None:
        """Put ``item`` (DynamoDB JSON) into ``table_name`` unconditionally — 2 WCU per KB in a transaction."""
        self._put_items.append({"TableName": table_name, "Item": item})

    def check_raw(self, check: dict[str, Any]) -> None:
        """A raw ConditionCheck (TableName, Key, ConditionExpression, names/values) — charged as a transactional
        write of the checked item's size (2 WCU per started KB), nothing written."""
        self._condition_check_items.append(check)

    def delete_raw(self, table_name: str, key: dict[str, Any]) -> None:
        """Delete the item at ``key`` (DynamoDB JSON) unconditionally — 2 WCU per KB in a transaction."""
        self._delete_items.append({"TableName": table_name, "Key": key})


def raw_put(table_name: str, item: dict[str, Any]) -> dict[str, Any]:
    """A raw Put for ``RawTransactWrite.put_raw`` (and BatchWriteItem's PutRequest)."""
    return {"TableName": table_name, "Item": item}
