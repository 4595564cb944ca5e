"""The API's OpenAPI 3.1 document as programs need it: every operation's DynamoDB cost, errors as problem documents.

``cost()`` is what each operation passes as ``openapi_extra``: the DynamoDB requests and capacity units one call
costs (``x-dynamodb-cost``), worked out in the docstrings of the selectors and services it calls; every answer also
says what it really cost in its ``X-DynamoDB-Requests``/``-RCU``/``-WCU`` headers.

``TrackerAPI`` is ``NinjaAPI`` whose document (1) names ``application/problem+json`` for every answer of 400 and
above (ninja writes ``application/json`` for all: schemathesis would call the real content type undocumented),
(2) lists on every operation the problems any call may meet (400, 401, 403, 404, 405, 422, 429, 500, 503, each a
``Problem``), and (3) documents the headers every answer carries, on its successes: the request id, the rate limit
(IETF draft and ``X-RateLimit-*``) and the DynamoDB cost; on its problems the request id, with the rate limit on a
429 and ``Retry-After`` on a 429 and a 503 (each header listed once a status, not ten times over). ninja keys
``responses`` by int (a str key in ``openapi_extra`` would shadow the int one after JSON dumping: RESEARCH22 R§1),
so ints here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from ninja import NinjaAPI, Swagger
from ninja.openapi.schema import REF_TEMPLATE, OpenAPISchema
from ninja.schema import NinjaGenerateJsonSchema

from tracker.api import problems
from tracker.api.ratelimit import TokenThrottle
from tracker.api.schemas import Problem

COST_KEY = "x-dynamodb-cost"
PROBLEM_JSON = "application/problem+json"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
COMMON_PROBLEMS: dict[int, str] = {  # what any operation may answer, besides its own
    400: "Bad request: a parameter, cursor or header that cannot be used (`bad_request`, `invalid_input`).",
    401: "No valid token (`Authorization: Bearer trk_…`): missing, malformed, expired or revoked.",
    403: "The token's scope or the person's role does not allow this.",
    404: "No such resource, or it belongs to another team.",
    405: "This path does not take that method (see `Allow`).",
    422: "The request did not validate: `errors` lists each field.",
    429: "Too many requests for this token (or address): wait for `Retry-After` seconds.",
    500: "Something went wrong on our side; nothing was half-written. Quote `request_id`.",
    503: "The data store is busy or unreachable: nothing was changed; retry after `Retry-After` seconds.",
}
HEADERS: dict[str, tuple[str, dict[str, Any]]] = {  # name → (description, schema): on every answer
    "X-Request-Id": ("The request's id (the client's own if it sent a valid one); in problems as `request_id`.", {}),
    "RateLimit-Policy": ('The limit and its window (IETF draft), e.g. `"default";q=5000;w=3600`.', {}),
    "RateLimit": ('What is left of it and seconds to its reset (IETF draft), e.g. `"default";r=4999;t=1800`.', {}),
    "X-RateLimit-Limit": ("Requests allowed in the window.", {"type": "integer"}),
    "X-RateLimit-Remaining": ("Requests left in the window.", {"type": "integer"}),
    "X-RateLimit-Reset": ("When the window resets, in seconds since the epoch (UTC).", {"type": "integer"}),
    "X-DynamoDB-Requests": ("DynamoDB requests this call made.", {"type": "integer"}),
    "X-DynamoDB-RCU": ("Read capacity units this call consumed.", {"type": "number"}),
    "X-DynamoDB-WCU": ("Write capacity units this call consumed.", {"type": "number"}),
}
RETRY_AFTER = "Retry-After"


def cost(*, requests: int | str, rcu: float | str = 0, wcu: float | str = 0, note: str = "") -> dict[str, Any]:
    """``openapi_extra`` stating one call's DynamoDB cost: ``@router.get(..., openapi_extra=cost(requests=1))``.

    Figures are numbers, or words where a figure depends on the call (``"0.5 per 4 KB read"``); ``note`` says what
    the figure covers (a cold cache, a replay). Refuses negative numbers and empty words: a figure that states
    nothing is a defect. Merge with other ``openapi_extra`` as ``{**cost(...), "responses": {...}}``.
    """
    stated: dict[str, Any] = {}
    for name, value in (("requests", requests), ("rcu", rcu), ("wcu", wcu)):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise TypeError(f"cost {name}: a number or words, not {value!r}")
        if isinstance(value, str) and not value.strip():
            raise ValueError(f"cost {name}: empty words")
        if not isinstance(value, str) and value < 0:
            raise ValueError(f"cost {name}: {value} is negative")
        stated[name] = value
    if note:
        stated["note"] = note
    return {COST_KEY: stated}


def _problem_of(request: HttpRequest, error: Exception | type[Exception]) -> HttpResponse:
    """Every error an operation raises, as a problem document (ninja may hand over the class, not an instance)."""
    return problems.handle(request, error if isinstance(error, Exception) else error())


def _header_refs(names: list[str]) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


RATE_HEADERS = ("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _headers_of(status: int) -> list[str]:
    """Every header on a success; on a problem (the same headers come, but the docs page lists them once, under
    the success), the request id, the rate limit on a 429, and Retry-After on a 429 and a 503."""
    if status < 400:
        return list(HEADERS)
    named = ["X-Request-Id"]
    if status == 429:
        named.extend(RATE_HEADERS)
    if status in (429, 503):
        named.append(RETRY_AFTER)
    return named


def _finish_responses(responses: dict[Any, Any]) -> None:
    """Problems as problem+json, the common ones added, the headers every answer carries documented."""
    for status, description in COMMON_PROBLEMS.items():
        if status not in responses and str(status) not in responses:
            responses[status] = {"description": description, "content": {PROBLEM_JSON: {"schema": PROBLEM_REF}}}
    for status, answer in responses.items():
        content = answer.get("content")
        if int(status) >= 400 and content is not None and "application/json" in content:
            content[PROBLEM_JSON] = content.pop("application/json")
        headers = answer.setdefault("headers", {})
        named = _headers_of(int(status))
        for name, ref in _header_refs(named).items():
            headers.setdefault(name, ref)


def finish_document(document: OpenAPISchema) -> OpenAPISchema:
    """The ninja document made the API's (see the module's docstring); idempotent."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    problem_schema = Problem.model_json_schema(ref_template=REF_TEMPLATE, schema_generator=NinjaGenerateJsonSchema)
    schemas.update(problem_schema.pop("$defs", {}))
    schemas["Problem"] = problem_schema
    headers = document["components"].setdefault("headers", {})
    for name, (description, schema) in HEADERS.items():
        headers[name] = {"description": description, "schema": schema or {"type": "string"}}
    headers[RETRY_AFTER] = {"description": "Seconds to wait before trying again.", "schema": {"type": "integer"}}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, Mapping) and "responses" in operation:
                _finish_responses(operation["responses"])
    return document


def operations_without_cost(document: Mapping[str, Any]) -> list[str]:
    """``METHOD /path`` of every operation that does not state its DynamoDB cost (the test wants none)."""
    return [
        f"{method.upper()} {path}"
        for path, operations in document.get("paths", {}).items()
        for method, operation in operations.items()
        if isinstance(operation, Mapping) and COST_KEY not in operation
    ]


class TrackerSwagger(Swagger):
    """ninja's Swagger UI (its bundled files: no CDN, no inline script) with a viewport, the site's rules for a
    phone's width (static/tracker/api-docs.css) and its settings as a ``json_script`` data block
    (templates/tracker/api_docs.html). No CSRF token: the API takes Bearer tokens only, never the session."""

    template = "tracker/api_docs.html"

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        self.settings["url"] = self.get_openapi_url(api, kwargs)
        return render(request, self.template, {"swagger_settings": self.settings, "api": api})


class TrackerAPI(NinjaAPI):
    """``NinjaAPI`` whose OpenAPI document states problems, headers and costs (``finish_document``), and whose
    operations count against their token's rate limit by default (``tracker.api.ratelimit.TokenThrottle``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("throttle", [TokenThrottle()])
        super().__init__(*args, **kwargs)

    def set_default_exception_handlers(self) -> None:
        """One handler, for ``Exception``: ninja's own defaults for ``ValidationError``, ``HttpError`` and ``Http404``
        would come first along the MRO and answer plain JSON (``{"detail": …}``) instead of a problem document."""
        self.add_exception_handler(Exception, _problem_of)

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        return finish_document(super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params))
