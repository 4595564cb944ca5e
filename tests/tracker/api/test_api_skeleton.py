"""The API's skeleton: its OpenAPI 3.1 document, its docs page without a CDN, and problem documents for every error.

The operations come with issue 22's areas; what holds already: ``/api/v1/openapi.json`` is a valid OpenAPI 3.1
document, ``/api/v1/docs`` loads Swagger UI from this site's static files, and a path no operation serves, under
``/api/v1/`` or any other version, is a 404 ``application/problem+json`` (RFC 9457) with a code and a request id,
never the site's HTML page.
"""

from __future__ import annotations

import json

import pytest
from django.http import Http404
from django.test import Client, RequestFactory
from openapi_spec_validator import validate

from ddbmodels.core import errors
from tracker.api import problems
from tracker.error_pages import RETRY_AFTER_SECONDS
from tracker.exceptions import BadCursor

pytestmark = pytest.mark.django_db


def test_the_openapi_document_is_openapi_3_1_and_valid(client: Client) -> None:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    document = json.loads(response.content)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] == "Tracker API"
    validate(document)  # raises on a document that is not valid OpenAPI 3.1


@pytest.mark.parametrize("path", ["/api/v1/nowhere", "/api/v1/teams/acme/nothing/", "/api/v2/teams", "/api/"])
def test_a_path_no_operation_serves_is_a_problem_document_not_a_page(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    body = json.loads(response.content)
    assert (body["status"], body["code"], body["title"]) == (404, "not_found", "Not found")
    assert body["type"].endswith("/not_found")
    assert body["request_id"] == response["X-Request-Id"]
    assert len(body["request_id"]) == 32
    assert b"<html" not in response.content.lower()


def test_each_problem_has_its_own_request_id(client: Client) -> None:
    ids = {json.loads(client.get("/api/v1/nowhere").content)["request_id"] for _ in range(3)}
    assert len(ids) == 3


def test_the_docs_page_loads_swagger_from_this_site_not_a_cdn(client: Client) -> None:
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui-bundle.js" in page
    assert "cdn." not in page
    assert "unpkg" not in page
    assert "jsdelivr" not in page
    assert "/static/ninja/" in page


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (errors.NotFound("No issue WEB-9."), 404, "not_found"),
        (errors.InvalidInput("A title is needed."), 400, "invalid_input"),
        (errors.KeyUsed("used"), 409, "idempotency_key_used"),
        (errors.InvalidTransition("closed → resolved is not a move"), 409, "invalid_transition"),
        (errors.Unavailable("throttled"), 503, "unavailable"),
        (BadCursor("That page link is damaged."), 400, "bad_request"),
        (Http404("nothing"), 404, "not_found"),
    ],
)
def test_an_operations_error_is_the_problem_its_page_would_show(
    rf: RequestFactory, error: Exception, status: int, code: str
) -> None:
    """The statuses are the pages' (tracker.error_pages): a 503 carries Retry-After, a domain error its own code."""
    response = problems.handle(rf.get("/api/v1/x"), error)
    body = json.loads(response.content)
    assert (response.status_code, body["status"], body["code"]) == (status, status, code)
    assert response["Content-Type"] == "application/problem+json"
    assert (response.get("Retry-After") == str(RETRY_AFTER_SECONDS)) == (status == 503)


def test_an_unexpected_error_is_a_500_problem_without_a_trace_and_logged_with_its_request_id(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    response = problems.handle(rf.get("/api/v1/x"), KeyError("secret internals"))
    body = json.loads(response.content)
    assert (response.status_code, body["code"]) == (500, "server_error")
    assert b"secret internals" not in response.content
    assert b"Traceback" not in response.content
    assert any(body["request_id"] in record.getMessage() for record in caplog.records)
