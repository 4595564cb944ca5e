"""Low-level DynamoDB calls of the item browser (botocore client: works on any table of the app).

Items travel as DynamoDB JSON (``{"attr": {"S": "x"}}``); binary values are base64 in JSON and
bytes for botocore. Nothing here knows about requests or templates.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection

PAGE_SIZE = 25
SORT_OPERATORS = ("=", "<", "<=", ">", ">=", "begins_with", "between")
SCALAR_TYPES = ("S", "N", "B")
ALL_TYPES = ("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M")
# Base tables whose items carry an optimistic-locking version number (PynamoDB VersionAttribute).
VERSION_ATTRIBUTES = {"issues": "v"}


class InvalidItem(ValueError):
    """DynamoDB JSON that is not a valid item (the message says where)."""


class StaleItem(Exception):
    """The item changed (or vanished) since it was loaded: nothing was written."""


@dataclass(frozen=True)
class KeySchema:
    """Partition and optional sort key of a table or index, with their scalar types."""

    partition: str
    partition_type: str
    sort: str | None = None
    sort_type: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.partition, self.sort) if self.sort else (self.partition,)


@dataclass
class Page:
    items: list[dict[str, Any]]
    last_key: dict[str, Any] | None
    scanned: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def key_schema(description: dict[str, Any], index: str | None = None) -> KeySchema:
    """The key schema of the table (``index`` None) or of one of its indexes; KeyError if unknown."""
    types = {a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]}
    schema = description["KeySchema"]
    if index:
        indexes = description.get("GlobalSecondaryIndexes", []) + description.get("LocalSecondaryIndexes", [])
        schema = next(i["KeySchema"] for i in indexes if i["IndexName"] == index)  # StopIteration → caller
    hash_name = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_name = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return KeySchema(hash_name, types[hash_name], range_name, types[range_name] if range_name else None)


def typed(kind: str, text: str) -> dict[str, Any]:
    """A key value typed in a form as an attribute value: S as is, N validated, B from base64."""
    if kind == "N":
        try:
            number = Decimal(text.strip())
        except InvalidOperation as error:
            raise InvalidItem(f"{text!r} is not a number") from error
        if not number.is_finite():
            raise InvalidItem(f"{text!r} is not a finite number")
        return {"N": text.strip()}
    if kind == "B":
        try:
            return {"B": base64.b64decode(text.strip(), validate=True)}
        except (binascii.Error, ValueError) as error:
            raise InvalidItem(f"{text!r} is not base64") from error
    return {"S": text}


# ---------------------------------------------------------------------------- DynamoDB JSON


def to_json(value: Any) -> Any:
    """botocore's item (bytes for B/BS) as JSON-able DynamoDB JSON (base64 for binary)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    return value


def dumps(item: dict[str, Any], *, pretty: bool = True) -> str:
    return json.dumps(to_json(item), indent=2 if pretty else None, sort_keys=True, ensure_ascii=False)


def fingerprint(item: dict[str, Any]) -> str:
    """SHA-256 of the item's canonical DynamoDB JSON (sets sorted): equal items, equal hashes."""
    return hashlib.sha256(json.dumps(_canonical(to_json(item)), sort_keys=True).encode()).hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: sorted(v) if k in ("SS", "NS", "BS") else _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def from_json(data: Any) -> dict[str, Any]:
    """An item from parsed DynamoDB JSON, checked and converted for botocore; InvalidItem if not valid."""
    if not isinstance(data, dict) or not data:
        raise InvalidItem("An item is a JSON object of attribute name → {type: value}.")
    return {str(name): _attribute(value, str(name)) for name, value in data.items()}


def _attribute(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) != 1:
        raise InvalidItem(f'{where}: expected one {{type: value}} pair, e.g. {{"S": "text"}}')
    ((kind, raw),) = value.items()
    checks = {
        "S": lambda: isinstance(raw, str),
        "N": lambda: isinstance(raw, str),
        "B": lambda: isinstance(raw, str),
        "BOOL": lambda: isinstance(raw, bool),
        "NULL": lambda: raw is True,
        "SS": lambda: _non_empty_strings(raw),
        "NS": lambda: _non_empty_strings(raw),
        "BS": lambda: _non_empty_strings(raw),
        "L": lambda: isinstance(raw, list),
        "M": lambda: isinstance(raw, dict),
    }
    if kind not in checks or not checks[kind]():
        raise InvalidItem(f"{where}: {kind!r} is not a valid DynamoDB type with this value")
    if kind == "N":
        return typed("N", raw) if raw.strip() else _fail(f"{where}: empty number")
    if kind == "NS":
        return {"NS": [typed("N", n)["N"] for n in raw]}
    if kind == "B":
        return _binary(raw, where)
    if kind == "BS":
        return {"BS": [_binary(b, where)["B"] for b in raw]}
    if kind == "L":
        return {"L": [_attribute(v, f"{where}[{i}]") for i, v in enumerate(raw)]}
    if kind == "M":
        return {"M": {str(k): _attribute(v, f"{where}.{k}") for k, v in raw.items()}}
    return {kind: raw}


def _non_empty_strings(raw: Any) -> bool:
    return isinstance(raw, list) and bool(raw) and all(isinstance(v, str) for v in raw)


def _binary(raw: str, where: str) -> dict[str, Any]:
    try:
        return typed("B", raw)
    except InvalidItem as error:
        raise InvalidItem(f"{where}: {error}") from error


def _fail(message: str) -> dict[str, Any]:
    raise InvalidItem(message)


# ---------------------------------------------------------------------------- reads


@capacity.access_pattern("admin.browse")
def read_page(request: dict[str, Any], *, scan: bool) -> Page:
    """One Query or Scan page of at most PAGE_SIZE items — RCU per 4 KB read (0.5 eventually consistent)."""
    call = connection.client().scan if scan else connection.client().query
    answer = call(Limit=PAGE_SIZE, ReturnConsumedCapacity="TOTAL", **request)
    return Page(answer.get("Items", []), answer.get("LastEvaluatedKey"), int(answer.get("ScannedCount", 0)))


@capacity.access_pattern("admin.item")
def item_get(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    """GetItem, consistent — 1 RCU per 4 KB. None when missing."""
    answer = connection.client().get_item(TableName=table, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    item: dict[str, Any] | None = answer.get("Item")
    return item


# ---------------------------------------------------------------------------- writes


def unchanged_condition(loaded: dict[str, Any], version: str | None) -> dict[str, Any]:
    """ConditionExpression: the stored item is still ``loaded`` (its version, or every attribute equal)."""
    names = [version] if version and version in loaded else sorted(loaded)
    parts, attr_names, values = [], {}, {}
    for i, name in enumerate(names):
        attr_names[f"#a{i}"] = name
        values[f":v{i}"] = loaded[name]
        parts.append(f"#a{i} = :v{i}")
    return {
        "ConditionExpression": " AND ".join(parts),
        "ExpressionAttributeNames": attr_names,
        "ExpressionAttributeValues": values,
    }


@capacity.access_pattern("admin.item")
def item_put_unchanged(table: str, new: dict[str, Any], loaded: dict[str, Any], *, version: str | None) -> None:
    """PutItem conditioned on the stored item being ``loaded`` — 1 WCU per KB. StaleItem if it changed.

    With a version attribute the new item gets loaded version + 1, so the app's own
    optimistic locking sees the admin's save like any other.
    """
    if version and version in loaded:
        new = {**new, version: {"N": str(int(Decimal(loaded[version]["N"])) + 1)}}
    _conditional(connection.client().put_item, TableName=table, Item=new, **unchanged_condition(loaded, version))


@capacity.access_pattern("admin.item")
def item_delete_unchanged(table: str, key: dict[str, Any], loaded: dict[str, Any], *, version: str | None) -> None:
    """DeleteItem conditioned on the stored item being ``loaded`` — 1 WCU per KB. StaleItem if it changed."""
    _conditional(connection.client().delete_item, TableName=table, Key=key, **unchanged_condition(loaded, version))


def _conditional(call: Any, **request: Any) -> None:
    try:
        call(ReturnConsumedCapacity="TOTAL", **request)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
            raise StaleItem("changed since it was loaded") from error
        raise
