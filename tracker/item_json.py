"""DynamoDB JSON of any item, for the item browser: key schemas, typed key values, parse, show, fingerprint.

Items travel as DynamoDB JSON (``{"attr": {"S": "x"}}``); binary values are base64 in JSON and
bytes for botocore (``ddbmodels.core.items`` reads and writes them). Pure functions: nothing here
calls DynamoDB or knows about requests or templates.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

SORT_OPERATORS = ("=", "<", "<=", ">", ">=", "begins_with", "between")
SCALAR_TYPES = ("S", "N", "B")
ALL_TYPES = ("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M")


class InvalidItem(ValueError):
    """DynamoDB JSON that is not a valid item (the message says where)."""


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


def key_schema(description: dict[str, Any], index: str | None = None) -> KeySchema | None:
    """The key schema of the table (``index`` None) or of one of its indexes; None for an unknown index."""
    types = {a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]}
    schema = description["KeySchema"]
    if index:
        indexes = description.get("GlobalSecondaryIndexes", []) + description.get("LocalSecondaryIndexes", [])
        schema = next((i["KeySchema"] for i in indexes if i["IndexName"] == index), None)
        if schema is None:
            return None
    hash_name = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_name = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return KeySchema(hash_name, types[hash_name], range_name, types[range_name] if range_name else None)


def table_key_schema(description: dict[str, Any]) -> KeySchema:
    """The key schema of the table itself (every table has one)."""
    schema = key_schema(description)
    assert schema is not None
    return schema


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
