"""A faster reading of DynamoDB's answers for the raw client: flat attribute values pass through as sent.

botocore parses every ``AttributeValue`` of an answer member by member against the service
model — ten members tried per value, each item a map of them — which makes reading a 6,000-item
Scan page cost ≈ 60–120 ms of CPU (most of ``python -m ddbmodels distinct-keys`` on a small
table). For the value kinds whose parsed form *is* their wire form — ``S`` and ``N`` (strings),
``BOOL`` and ``NULL`` (JSON booleans) — the parse changes nothing, so this parser hands those
values (and items made only of them) back as ``json.loads`` made them. Binary (``B``, ``BS``:
base64 to bytes), sets, maps and lists still go through botocore's own code, as does every other
shape. ``tests/ddbmodels/core/test_fast_parse.py`` holds the output equal to botocore's for every
kind.

Only ``connection.client()`` uses it (its own botocore session's ``response_parser_factory``);
PynamoDB's clients keep botocore's parser. Should a botocore release rename the methods this
relies on, ``parser_factory()`` returns botocore's own factory and nothing changes but the speed.
"""

from __future__ import annotations

from typing import Any

from botocore import parsers

FLAT = frozenset({"S", "N", "BOOL", "NULL"})  # wire form == parsed form


def _flat(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and next(iter(value)) in FLAT


class DynamoJSONParser(parsers.JSONParser):
    """botocore's JSON parser, with flat attribute values and items of them passed through."""

    def _handle_structure(self, shape: Any, value: Any) -> Any:
        if shape.name == "AttributeValue" and _flat(value):
            return value
        return super()._handle_structure(shape, value)

    def _handle_map(self, shape: Any, value: Any) -> Any:
        if shape.name == "AttributeMap" and type(value) is dict and all(_flat(v) for v in value.values()):
            return value
        return super()._handle_map(shape, value)


class DynamoParserFactory(parsers.ResponseParserFactory):
    """Makes ``DynamoJSONParser`` for the JSON protocol (DynamoDB's), botocore's parsers otherwise."""

    def create_parser(self, protocol_name: str) -> Any:
        if protocol_name == "json":
            return DynamoJSONParser(**self._defaults)
        return super().create_parser(protocol_name)


def parser_factory() -> parsers.ResponseParserFactory:
    """The factory for ``connection.client()``'s session: ours while botocore has the methods it overrides."""
    base = parsers.JSONParser
    if callable(getattr(base, "_handle_structure", None)) and callable(getattr(base, "_handle_map", None)):
        return DynamoParserFactory()
    return parsers.ResponseParserFactory()
