"""The OpenAPI document: every operation states its DynamoDB cost and its problems, as problem+json, with headers.

``test_every_operation_*`` read the site's own document (``/api/v1/openapi.json``), so an operation added without
``openapi_extra=cost(...)`` fails here. The others build a small ``TrackerAPI`` to pin what ``finish_document`` does.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from django.test import Client
from ninja import Router, Schema, Status
from openapi_spec_validator import validate

from tracker.api.openapi import COMMON_PROBLEMS, COST_KEY, TrackerAPI, cost, operations_without_cost
from tracker.api.schemas import Page, Problem

pytestmark = pytest.mark.django_db


class ThingIn(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    title: str


class ThingOut(Schema):
    number: int


def _document() -> dict[str, Any]:
    api = TrackerAPI(title="t", version="1", urls_namespace="openapi-test")
    router = Router()

    @router.get("/things", response=Page[ThingOut], openapi_extra=cost(requests=1, rcu=0.5))
    def thing_list(request: Any) -> dict[str, Any]:
        return {"items": [], "next_cursor": None, "prev_cursor": None}

    @router.post(
        "/things",
        response={201: ThingOut, 409: Problem},
        openapi_extra=cost(requests=2, wcu="2 per KB", note="keyed"),
    )
    def thing_create(request: Any, payload: ThingIn) -> Status:
        return Status(201, {"number": 1})

    @router.delete("/things/{number}")
    def thing_delete(request: Any, number: int) -> None:
        return None

    api.add_router("", router)
    return json.loads(json.dumps(api.get_openapi_schema(path_prefix="")))


def test_cost_states_the_figures_and_words() -> None:
    assert cost(requests=1, rcu=0.5) == {COST_KEY: {"requests": 1, "rcu": 0.5, "wcu": 0}}
    assert cost(requests="1 a page", wcu=3, note="cold cache: +1") == {
        COST_KEY: {"requests": "1 a page", "rcu": 0, "wcu": 3, "note": "cold cache: +1"}
    }


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"requests": -1}, ValueError),
        ({"requests": 1, "rcu": -0.5}, ValueError),
        ({"requests": " "}, ValueError),
        ({"requests": None}, TypeError),
        ({"requests": True}, TypeError),
    ],
)
def test_cost_refuses_a_figure_that_states_nothing(arguments: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        cost(**arguments)


def test_a_finished_document_is_valid_openapi_3_1() -> None:
    document = _document()
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_operation_lists_the_common_problems_as_problem_json() -> None:
    document = _document()
    for operations in document["paths"].values():
        for operation in operations.values():
            responses = operation["responses"]
            for status in COMMON_PROBLEMS:
                content = responses[str(status)]["content"]
                assert list(content) == ["application/problem+json"]
                assert content["application/problem+json"]["schema"] == {"$ref": "#/components/schemas/Problem"}
    # an operation's own problem (its 409) is problem+json too, its success stays application/json
    create = document["paths"]["/things"]["post"]["responses"]
    assert list(create["409"]["content"]) == ["application/problem+json"]
    assert list(create["201"]["content"]) == ["application/json"]
    assert set(document["components"]["schemas"]) >= {"Problem", "FieldError"}


def test_the_headers_every_answer_carries_are_documented_and_retry_after_on_429_and_503() -> None:
    document = _document()
    listed = document["paths"]["/things"]["get"]["responses"]
    every = {"X-Request-Id", "RateLimit", "RateLimit-Policy", "X-RateLimit-Remaining", "X-DynamoDB-RCU"}
    assert every <= set(listed["200"]["headers"])
    assert "Retry-After" not in listed["200"]["headers"]
    for status, answer in listed.items():
        names = set(answer["headers"])
        assert "X-Request-Id" in names
        assert ("Retry-After" in names) == (status in ("429", "503"))
        assert ("RateLimit" in names) == (status in ("200", "429"))
    assert "Retry-After" in document["components"]["headers"]


def test_the_cost_is_in_the_operation_and_a_missing_one_is_found() -> None:
    document = _document()
    assert document["paths"]["/things"]["post"][COST_KEY] == {
        "requests": 2,
        "rcu": 0,
        "wcu": "2 per KB",
        "note": "keyed",
    }
    assert operations_without_cost(document) == ["DELETE /things/{number}"]


def test_the_site_document_is_valid_and_every_operation_states_its_cost(client: Client) -> None:
    document = json.loads(client.get("/api/v1/openapi.json").content)
    validate(document)
    assert operations_without_cost(document) == []
    assert document["components"]["schemas"]["Problem"]["properties"]["code"]["type"] == "string"
