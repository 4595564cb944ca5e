"""fast_parse: the raw client's answers read the same as botocore reads them, for every attribute kind."""

from __future__ import annotations

import json
from typing import Any

import botocore.session
import pytest
from botocore import parsers

from ddbmodels.core import connection, fast_parse

EVERY_KIND = {
    "pk": {"S": "acme#WEB"},
    "n": {"N": "42"},
    "bin": {"B": "aGVsbG8="},
    "flag": {"BOOL": False},
    "nothing": {"NULL": True},
    "names": {"SS": ["a", "b"]},
    "numbers": {"NS": ["1", "2.5"]},
    "blobs": {"BS": ["aGk=", "eW8="]},
    "map": {"M": {"inner": {"S": "x"}, "deep": {"L": [{"N": "1"}, {"B": "aGk="}, {"M": {}}]}}},
    "list": {"L": [{"S": "y"}, {"BOOL": True}, {"NULL": True}]},
}
FLAT_ITEM = {"pk": {"S": "globex#APP"}, "n": {"N": "7"}, "ok": {"BOOL": True}, "gone": {"NULL": True}}


def answers() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("Scan", {"Items": [EVERY_KIND, FLAT_ITEM, {}], "Count": 3, "ScannedCount": 3, "LastEvaluatedKey": FLAT_ITEM}),
        ("Query", {"Items": [FLAT_ITEM] * 3, "Count": 3, "ScannedCount": 3, "ConsumedCapacity": {"TableName": "t"}}),
        ("GetItem", {"Item": EVERY_KIND, "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}}),
        ("BatchGetItem", {"Responses": {"t": [EVERY_KIND, FLAT_ITEM]}, "UnprocessedKeys": {}}),
        ("UpdateItem", {"Attributes": EVERY_KIND}),
    ]


@pytest.mark.parametrize(("operation", "answer"), answers(), ids=[name for name, _ in answers()])
def test_every_answer_reads_exactly_as_botocore_reads_it(operation: str, answer: dict[str, Any]) -> None:
    shape = botocore.session.get_session().get_service_model("dynamodb").operation_model(operation).output_shape
    body = json.dumps(answer).encode()

    def read(parser: parsers.ResponseParser) -> dict[str, Any]:
        parsed = parser.parse({"body": body, "headers": {}, "status_code": 200}, shape)
        parsed.pop("ResponseMetadata", None)
        return parsed

    theirs, ours = read(parsers.JSONParser()), read(fast_parse.DynamoJSONParser())
    assert ours == theirs
    if operation == "GetItem":
        assert ours["Item"]["bin"] == {"B": b"hello"}  # binary still decoded by botocore's code
        assert ours["Item"]["map"]["M"]["deep"]["L"][1] == {"B": b"hi"}


def test_only_the_json_protocol_gets_the_fast_parser() -> None:
    factory = fast_parse.parser_factory()
    assert type(factory.create_parser("json")) is fast_parse.DynamoJSONParser
    assert type(factory.create_parser("rest-json")) is parsers.RestJSONParser


def test_without_the_methods_it_overrides_botocore_s_own_factory_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(parsers.BaseJSONParser, "_handle_map")  # as a botocore that renamed it
    assert type(fast_parse.parser_factory()) is parsers.ResponseParserFactory


def test_the_raw_client_reads_with_it() -> None:
    client = connection.client()
    assert type(client._endpoint._response_parser_factory.create_parser("json")) is fast_parse.DynamoJSONParser
