"""The API's errors as ``application/problem+json`` (RFC 9457), never an HTML page or a stack trace.

Every answer of 400 and above under ``/api/`` is a problem document::

    {"type": "https://tracker.invalid/problems/not_found", "title": "Not found", "status": 404,
     "detail": "No such resource.", "code": "not_found", "request_id": "…",
     "errors": [{"field": "title", "message": "Field required", "code": "missing"}], "current": {…}}

``code`` is the error tree's (``ddbmodels.core.errors.DomainError.code``, or the web layer's for what is not a
domain error: ``STATUS_CODES``); ``errors`` lists the fields of a request that did not validate (422); ``current``
is the resource as it is now (a 409 or 412 of a stale write); ``request_id`` is the request's
(``tracker.api.middleware``: the client's own ``X-Request-Id`` when it sent a sane one), also the answer's
``X-Request-Id`` header and in the log line of a 500. A 429's ``type`` is the registered quota-exceeded one.

The statuses are the pages' (``tracker.error_pages.answer``, one map for both): a domain error means the same to a
program as to a person. Only the API meets ``KeyReused`` (an Idempotency-Key sent with another body): a 422.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from ddbmodels.core import errors as domain
from tracker.error_pages import RETRY_AFTER_SECONDS, answer, known
from tracker.issue_query import QueryError

log = logging.getLogger(__name__)
PROBLEM_TYPE = "application/problem+json"
TYPE_BASE = (
    "https://tracker.invalid/problems/"  # a problem type names its code; no page is served there (RFC 9457 §3.1.1)
)
QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded"  # IANA's registered 429 type
REQUEST_ID: ContextVar[str | None] = ContextVar("api_request_id", default=None)  # set by ApiMiddleware
TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    412: "Precondition failed",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Server error",
    503: "Service unavailable",
}
STATUS_CODES = {  # the code of a problem known only by its status (ninja's HttpError, a page Django answered)
    400: "bad_request",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}
STATUS_DETAILS = {
    404: "No API resource here.",
    405: "This path does not take that method.",
    429: "Too many requests: wait Retry-After seconds before the next one.",
    500: "Something went wrong on our side; nothing was half-written.",
    503: "The data store is busy or unreachable: try again shortly. Nothing was changed.",
}


def status_code_of(status: int) -> str:
    return STATUS_CODES.get(status, "client_error" if status < 500 else "server_error")


def problem(
    status: int,
    code: str,
    detail: str = "",
    *,
    errors: Iterable[Mapping[str, Any]] = (),
    current: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    field_errors: Iterable[Mapping[str, Any]] = (),  # the groundwork's name for ``errors``
) -> HttpResponse:
    """A problem document with its status and ``code``, the request's id (also the ``X-Request-Id`` header).

    ``errors``: the fields that did not validate (``{"field", "message", "code"}``); ``current``: the resource as it
    is now (409/412). ``detail`` defaults to the status's title.
    """
    request_id = REQUEST_ID.get() or uuid.uuid4().hex
    body: dict[str, Any] = {
        "type": QUOTA_EXCEEDED if status == 429 else f"{TYPE_BASE}{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail or TITLES.get(status, "Error"),
        "code": code,
        "request_id": request_id,
    }
    listed = [dict(item) for item in (*errors, *field_errors)]
    if listed:
        body["errors"] = listed
    if current is not None:
        body["current"] = dict(current)
    response = JsonResponse(body, status=status, content_type=PROBLEM_TYPE)
    response["X-Request-Id"] = request_id
    response["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def unavailable(detail: str = "") -> HttpResponse:
    """503 with Retry-After: nothing was changed, the same request may be sent again."""
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return problem(503, "unavailable", detail or STATUS_DETAILS[503], headers=headers)


def rate_limited() -> HttpResponse:
    """429 (its Retry-After and rate headers come with the window: ``tracker.api.ratelimit.after``)."""
    return problem(429, "rate_limited", STATUS_DETAILS[429])


def domain_problem(error: Exception) -> HttpResponse | None:
    """The problem of a known error (the pages' status, the error's code and words); None for an unknown one."""
    if isinstance(error, domain.KeyReused):  # an API-only refusal: the key was used for another request
        return problem(422, error.code, str(error) or "This Idempotency-Key was used for another request.")
    named = known(error)
    found = answer(named)
    if found is None:
        return None
    if found.status == 503:
        return unavailable(str(named) if named is error else "")  # never botocore's words
    code = named.code if isinstance(named, domain.DomainError) else STATUS_CODES[found.status]
    return problem(found.status, code, str(named) or found.message)


def _field(location: Iterable[Any]) -> str:
    """ninja's ``loc`` without its source and parameter name: ``["body", "payload", "title"]`` → ``title``."""
    parts = [str(part) for part in location]
    parts = parts[2:] if parts[:1] == ["body"] else parts[1:]  # "body" and the parameter; "query", "path", "header"
    return ".".join(parts) or "body"


def field_problems(error: ValidationError) -> list[dict[str, str]]:
    """ninja's validation errors (pydantic's) as ``FieldError``s: ``field``, ``message``, ``code``."""
    return [
        {
            "field": _field(item.get("loc", ())),
            "message": str(item.get("msg", "invalid")),
            "code": str(item.get("type", "invalid")),
        }
        for item in error.errors
    ]


def handle(request: HttpRequest, error: Exception) -> HttpResponse:
    """The one exception handler of the API (registered for ``Exception``: ninja looks handlers up along the MRO)."""
    if isinstance(error, ValidationError):
        return problem(422, "invalid_request", "The request did not validate.", errors=field_problems(error))
    if isinstance(error, AuthenticationError):
        return problem(401, "not_authenticated", "A valid token is needed.", headers={"WWW-Authenticate": "Bearer"})
    if isinstance(error, Throttled):
        return rate_limited()
    if isinstance(error, HttpError):
        return problem(error.status_code, status_code_of(error.status_code), str(error))
    if isinstance(error, Http404):
        return problem(404, "not_found", "No such resource.")
    if isinstance(error, PermissionDenied):  # a token's scope, or its person's role (the services' require_role)
        return problem(403, "forbidden", str(error) or "Not allowed.")
    if isinstance(error, QueryError):  # a filter or sort the lists cannot run (the query box's words)
        return problem(400, "invalid_query", str(error))
    found = domain_problem(error)
    if found is not None:
        return found
    response = problem(500, "server_error", STATUS_DETAILS[500])
    log.exception("API error (request id %s)", response["X-Request-Id"], exc_info=error)
    return response


def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Any path under ``/api/`` that no operation serves (``/api/v2/…``, ``/api/v1/nowhere``)."""
    return problem(404, "not_found", f"No API resource at {request.path}.")
