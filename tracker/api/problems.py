"""The API's errors as ``application/problem+json`` (RFC 9457), never an HTML page or a stack trace.

Every answer of 400 and above under ``/api/`` is a problem document::

    {"type": "https://tracker.invalid/problems/not_found", "title": "Not found", "status": 404,
     "detail": "No such resource.", "code": "not_found", "request_id": "…", "errors": [...]}

``code`` is the error tree's (``ddbmodels.core.errors.DomainError.code``, or the web layer's for what is not a
domain error); ``errors`` lists per-field problems of a request that did not validate (``loc``, ``msg``);
``request_id`` is also the answer's ``X-Request-Id`` header, and the log line of a 500 carries it. The statuses are
the pages' (``tracker.error_pages``): a domain error means the same to a program as to a person.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja.errors import AuthenticationError, HttpError, ValidationError

from ddbmodels.core import errors
from tracker.error_pages import RETRY_AFTER_SECONDS
from tracker.exceptions import BadRequest

log = logging.getLogger(__name__)
PROBLEM_TYPE = "application/problem+json"
TYPE_BASE = (
    "https://tracker.invalid/problems/"  # a problem type names its code; no page is served there (RFC 9457 §3.1.1)
)
TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    412: "Precondition failed",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Server error",
    503: "Service unavailable",
}
DOMAIN_STATUS: list[tuple[type[errors.DomainError], int]] = [  # the first that matches; as tracker.error_pages
    (errors.NotFound, 404),
    (errors.MilestoneNotOpen, 409),  # before InvalidInput, its base: the milestone's state, not bad input
    (errors.InvalidInput, 400),
    (errors.AlreadyExists, 409),
    (errors.ChangedSinceRead, 409),
    (errors.InvalidTransition, 409),
    (errors.Contention, 503),
    (errors.Unavailable, 503),
]


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    field_errors: Iterable[Mapping[str, Any]] = (),
    headers: Mapping[str, str] | None = None,
) -> HttpResponse:
    """A problem document with its status, ``code`` and a fresh request id (also the ``X-Request-Id`` header)."""
    request_id = uuid.uuid4().hex
    body: dict[str, Any] = {
        "type": f"{TYPE_BASE}{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": request_id,
    }
    listed = [dict(item) for item in field_errors]
    if listed:
        body["errors"] = listed
    response = JsonResponse(body, status=status, content_type=PROBLEM_TYPE)
    response["X-Request-Id"] = request_id
    response["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _unavailable(detail: str) -> HttpResponse:
    return problem(503, "unavailable", detail, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def domain_problem(error: errors.DomainError) -> HttpResponse:
    for kind, status in DOMAIN_STATUS:
        if isinstance(error, kind):
            if status == 503:
                return _unavailable(str(error) or "Busy for a moment: try again shortly. Nothing was changed.")
            return problem(status, error.code, str(error) or TITLES[status])
    return problem(400, error.code, str(error) or TITLES[400])


def field_problems(error: ValidationError) -> list[dict[str, Any]]:
    """ninja's validation errors (pydantic's) as ``loc`` (without ninja's own parameter names) and ``msg``."""
    found = []
    for item in error.errors:
        loc = [str(part) for part in item.get("loc", ())]
        found.append({"loc": loc, "msg": str(item.get("msg", "invalid")), "type": str(item.get("type", "invalid"))})
    return found


def handle(request: HttpRequest, error: Exception) -> HttpResponse:
    """The one exception handler of the API (registered for ``Exception``: ninja looks handlers up along the MRO)."""
    if isinstance(error, ValidationError):
        return problem(422, "invalid_request", "The request did not validate.", field_errors=field_problems(error))
    if isinstance(error, AuthenticationError):
        return problem(401, "not_authenticated", "A valid token is needed.", headers={"WWW-Authenticate": "Bearer"})
    if isinstance(error, HttpError):
        return problem(error.status_code, "http_error", str(error))
    if isinstance(error, Http404):
        return problem(404, "not_found", "No such resource.")
    if isinstance(error, PermissionDenied):  # a token's scope, or its person's role (the services' require_role)
        return problem(403, "forbidden", str(error) or "Not allowed.")
    if isinstance(error, errors.DomainError):
        return domain_problem(error)
    if errors.is_unavailable(error):
        return _unavailable("The data store is busy or unreachable: try again shortly. Nothing was changed.")
    if isinstance(error, BadRequest):
        return problem(400, "bad_request", str(error))
    answer = problem(500, "server_error", "Something went wrong on our side; nothing was half-written.")
    log.exception("API error (request id %s)", answer["X-Request-Id"], exc_info=error)
    return answer


def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Any path under ``/api/`` that no operation serves (``/api/v2/…``, ``/api/v1/nowhere``)."""
    return problem(404, "not_found", f"No API resource at {request.path}.")
