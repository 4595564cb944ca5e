"""Every answer under /api/ of 400 and above is a problem document with the request's id; no HTML, no trace.

The operations are a small ``TrackerAPI`` of tests/tracker/api/edges_urls.py (``/api/edges/``), with the site's
``TokenAuth``, exception handler and ``ApiMiddleware``, so what is checked here holds for every area's operations.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, RequestFactory

from tests.dynamodb_faults import Refusal
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.api import problems
from tracker.error_pages import RETRY_AFTER_SECONDS
from tracker.issue_query import QueryError

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.tracker.api.edges_urls")]


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = json.loads(response.content)
    assert (body["status"], body["code"]) == (status, code)
    assert body["request_id"] == response["X-Request-Id"]
    assert b"<html" not in response.content.lower()
    assert b"Traceback" not in response.content
    return body


def test_a_method_the_path_does_not_take_is_a_405_problem_keeping_allow(
    world: World, api_client: ApiClientFactory
) -> None:
    response = api_client(world).post("/api/edges/boom")
    body = _problem(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET"
    assert "GET" in body["detail"]


def test_an_operations_unexpected_exception_is_a_500_problem_without_its_words(
    world: World, api_client: ApiClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    response = api_client(world).get("/api/edges/boom")
    body = _problem(response, 500, "server_error")
    assert b"secret internals" not in response.content
    assert any(body["request_id"] in record.getMessage() for record in caplog.records)


def test_a_plain_views_exception_under_api_is_a_problem_not_the_sites_500_page(client: Client) -> None:
    _problem(client.get("/api/raw/"), 500, "server_error")


def test_a_body_that_does_not_validate_lists_each_field(world: World, api_client: ApiClientFactory) -> None:
    response = api_client(world).post_json("/api/edges/things", {"title": "too long", "color": "red"})
    body = _problem(response, 422, "invalid_request")
    found = {(error["field"], error["code"]) for error in body["errors"]}
    assert found == {("title", "string_too_long"), ("color", "extra_forbidden")}
    assert all(error["message"] for error in body["errors"])


@pytest.mark.parametrize("sent", ['"AAA"', "[]", "12"])
def test_a_body_that_is_not_an_object_is_refused(world: World, api_client: ApiClientFactory, sent: str) -> None:
    response = api_client(world).post("/api/edges/things", sent, content_type="application/json")
    body = _problem(response, 422, "invalid_request")
    assert [error["field"] for error in body["errors"]] == ["body"]


def test_a_body_that_is_not_json_is_a_400_problem(world: World, api_client: ApiClientFactory) -> None:
    response = api_client(world).post("/api/edges/things", "{not json", content_type="application/json")
    _problem(response, 400, "bad_request")


def test_no_token_is_a_401_problem_asking_for_a_bearer_token(client: Client) -> None:
    response = client.get("/api/edges/boom")
    _problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_a_refusal_of_the_token_or_role_is_a_403_problem(world: World, api_client: ApiClientFactory) -> None:
    body = _problem(api_client(world).get("/api/edges/forbidden"), 403, "forbidden")
    assert body["detail"] == "This token may only read."


def test_the_clients_request_id_is_kept_and_a_strange_one_replaced(client: Client) -> None:
    mine = "client-req.0001"
    response = client.get("/api/edges/nowhere", headers={"X-Request-Id": mine})
    assert _problem(response, 404, "not_found")["request_id"] == mine
    strange = client.get("/api/edges/nowhere", headers={"X-Request-Id": "<script>"})
    body = _problem(strange, 404, "not_found")
    assert body["request_id"] != "<script>"
    assert len(body["request_id"]) == 32
    ok = client.get("/api/edges/public", headers={"X-Request-Id": mine})
    assert (ok.status_code, ok["X-Request-Id"]) == (200, mine)


def test_pages_outside_api_are_left_alone(client: Client) -> None:
    response = client.get("/plain/1/")
    assert response.status_code == 200
    assert not response.has_header("X-Request-Id")
    assert not response.has_header("X-DynamoDB-Requests")


def test_every_answer_says_what_it_cost_dynamodb(world: World, api_client: ApiClientFactory) -> None:
    response = api_client(world).get(f"/api/edges/teams/{world.slug}/projects/WEB")
    assert response.status_code == 200
    assert (response["X-DynamoDB-Requests"], response["X-DynamoDB-RCU"], response["X-DynamoDB-WCU"]) == (
        "1",
        "0.5",
        "0",
    )


def test_another_teams_url_is_a_404_problem(world: World, api_client: ApiClientFactory) -> None:
    _problem(api_client(world).get("/api/edges/teams/globex-nope/projects/WEB"), 404, "not_found")


def test_dynamodb_throttled_is_a_503_problem_with_retry_after_and_no_dynamodb_words(
    world: World, api_client: ApiClientFactory, dynamodb_refuses: Callable[..., Refusal]
) -> None:
    dynamodb_refuses("GetItem", code="ProvisionedThroughputExceededException", status=400)
    response = api_client(world).get(f"/api/edges/teams/{world.slug}/projects/WEB")
    body = _problem(response, 503, "unavailable")
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "Provisioned" not in body["detail"]


def test_a_problem_carries_field_errors_and_the_current_resource(rf: RequestFactory) -> None:
    response = problems.problem(
        412,
        "precondition_failed",
        errors=[{"field": "If-Match", "message": "stale", "code": "stale"}],
        current={"v": 3},
    )
    body = json.loads(response.content)
    assert body["detail"] == "Precondition failed"  # the title when no detail is given
    assert body["current"] == {"v": 3}
    assert body["errors"] == [{"field": "If-Match", "message": "stale", "code": "stale"}]
    assert body["type"].endswith("/precondition_failed")


def test_a_query_the_lists_cannot_run_is_a_400_naming_why(rf: RequestFactory) -> None:
    response = problems.handle(rf.get("/api/v1/x"), QueryError("Unknown filter: colour."))
    body = json.loads(response.content)
    assert (response.status_code, body["code"], body["detail"]) == (400, "invalid_query", "Unknown filter: colour.")
