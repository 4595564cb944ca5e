"""The table as DescribeTable shows it, its key values (and the largest of each type), the errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ddbmodels.core import connection
from ddbmodels.core.errors import DomainError, InvalidInput, NotFound, Unavailable

# The largest value of each key type (sort keys: 1,024 bytes at most). Strings and binaries
# compare as unsigned UTF-8 bytes, so 256 × U+10FFFF (F4 8F BF BF each) tops every string.
MAX_S = "\U0010ffff" * 256
MAX_N = "9.9999999999999999999999999999999999999E+125"
MAX_B = b"\xff" * 1024
MAX_VALUE: dict[str, Any] = {"S": MAX_S, "N": MAX_N, "B": MAX_B}

Key = str | int | Decimal | bytes


class DistinctKeysError(DomainError, code="distinct_keys_error"):
    """The distinct keys could not be listed."""


class BadRequest(DistinctKeysError, InvalidInput, code="distinct_keys_bad_request"):
    """An argument does not fit the table (method, segments or index)."""


class TableNotFound(NotFound, code="table_not_found"):
    """No such table on this endpoint."""


class ReadFailed(DistinctKeysError, Unavailable, code="distinct_keys_read_failed"):
    """A DynamoDB call failed after botocore's retries."""


@dataclass(frozen=True)
class IndexInfo:
    """A secondary index as DescribeTable reports it."""

    name: str
    kind: str  # "global" or "local"
    projection: str
    item_count: int
    size_bytes: int


@dataclass(frozen=True)
class TableInfo:
    """Key schema, size and indexes of a table (DescribeTable)."""

    name: str
    hash_key: str
    hash_type: str
    range_key: str | None
    range_type: str | None
    item_count: int
    size_bytes: int
    indexes: dict[str, IndexInfo] = field(default_factory=dict)

    @classmethod
    def from_description(cls, table: dict[str, Any]) -> TableInfo:
        types = {a["AttributeName"]: a["AttributeType"] for a in table.get("AttributeDefinitions", [])}
        keys = {k["KeyType"]: k["AttributeName"] for k in table["KeySchema"]}
        indexes: dict[str, IndexInfo] = {}
        for kind, entries in (
            ("global", table.get("GlobalSecondaryIndexes", [])),
            ("local", table.get("LocalSecondaryIndexes", [])),
        ):
            for index in entries:
                indexes[index["IndexName"]] = IndexInfo(
                    name=index["IndexName"],
                    kind=kind,
                    projection=(index.get("Projection") or {}).get("ProjectionType", ""),
                    item_count=int(index.get("ItemCount") or 0),
                    size_bytes=int(index.get("IndexSizeBytes") or 0),
                )
        range_key = keys.get("RANGE")
        return cls(
            name=table["TableName"],
            hash_key=keys["HASH"],
            hash_type=types[keys["HASH"]],
            range_key=range_key,
            range_type=types[range_key] if range_key else None,
            item_count=int(table.get("ItemCount") or 0),
            size_bytes=int(table.get("TableSizeBytes") or 0),
            indexes=indexes,
        )


def describe(table_name: str) -> TableInfo:
    """DescribeTable — free (no read capacity): key schema, ItemCount, TableSizeBytes, indexes.

    Raises TableNotFound when the endpoint has no such table.
    """
    try:
        answer = connection.client().describe_table(TableName=table_name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
            raise TableNotFound(f"no table {table_name!r} on this endpoint", table=table_name) from None
        raise ReadFailed(f"DescribeTable {table_name!r} failed: {error}", table=table_name) from error
    except BotoCoreError as error:
        raise ReadFailed(f"DescribeTable {table_name!r} failed: {error}", table=table_name) from error
    return TableInfo.from_description(answer["Table"])


def decode_key(value: dict[str, Any]) -> Key:
    """No DynamoDB call — a key AttributeValue as Python: S → str, B → bytes, N → int if integral, else Decimal.

    Exact: DynamoDB's 38 significant digits survive (Decimal's context plays no part here).
    """
    if "S" in value:
        return str(value["S"])
    if "B" in value:
        return bytes(value["B"])
    if "N" in value:
        number = Decimal(value["N"])
        return int(number) if number == number.to_integral_value() else number
    raise ValueError(f"not a key value: {value!r}")
