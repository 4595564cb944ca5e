"""The edges of every answer under ``/api/``: its request id, rate limit, DynamoDB cost, and never an HTML page.

``ApiMiddleware`` sits inside ``tracker.middleware.CapacityMiddleware`` (whose meter it reads) and right after
``ErrorPageMiddleware`` (so it sees a view's exception first). For a path under ``/api/`` it

- gives the request an id: the client's ``X-Request-Id`` when it is 8–64 of ``A-Za-z0-9._-``, else a fresh one;
  every problem document carries it (``request_id``) and every answer its ``X-Request-Id`` header;
- counts a call without a token against its address (``tracker.api.ratelimit``) before anything runs, and one
  whose token was refused (401) after; over the address's limit, a 429;
- names the call's token for the capacity figures (``request.capacity_token``: ``<team>#<username>#<hint>``);
- adds the rate-limit headers, and ``X-DynamoDB-Requests``/``-RCU``/``-WCU``: what the call cost DynamoDB so far
  (everything but the capacity figures' own Redis write), so a client can check "one request a page" itself;
- turns any answer of 400 and above that is not a problem document (ninja's ``text/html`` 405, Django's 404/500
  pages, an exception no handler took) into one, keeping ``Allow``, ``Retry-After`` and ``WWW-Authenticate``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from tracker.api import problems, ratelimit

PREFIX = "/api/"
CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def request_id_of(request: HttpRequest) -> str:
    """The client's request id when it is a sane one (so its logs and ours meet), else a fresh uuid4 hex."""
    sent = request.headers.get("X-Request-Id", "")
    return sent if CLIENT_REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex


def has_token(request: HttpRequest) -> bool:
    """The call names a bearer token (valid or not: ``TokenAuth`` decides)."""
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(credentials.strip())


def as_problem(response: HttpResponse) -> HttpResponse:
    """``response`` when it is already a problem document (or below 400); else the problem of its status."""
    if response.status_code < 400 or response.get("Content-Type", "").startswith(problems.PROBLEM_TYPE):
        return response
    status = response.status_code
    kept = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    detail = problems.STATUS_DETAILS.get(status, problems.TITLES.get(status, "Error"))
    if status == 405 and "Allow" in kept:
        detail = f"{detail} This path takes {kept['Allow']}."
    return problems.problem(status, problems.status_code_of(status), detail, headers=kept)


class ApiMiddleware:
    """Request ids, rate limits, cost headers and problem documents for every answer under ``/api/``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(PREFIX):
            return self.get_response(request)
        request_id = request_id_of(request)
        request.request_id = request_id  # type: ignore[attr-defined]
        token = problems.REQUEST_ID.set(request_id)
        try:
            response = as_problem(self._answer(request))
            ratelimit.after(request, response)
        finally:
            problems.REQUEST_ID.reset(token)
        caller = getattr(request, "auth", None)
        membership = getattr(caller, "membership", None)
        if membership is not None:  # the Capacity page's "API calls by token" (tracker.middleware.CapacityMiddleware)
            label = f"{membership.tenant.slug}#{membership.user.username}#{caller.hint}"  # type: ignore[union-attr]
            request.capacity_token = label  # type: ignore[attr-defined]
        meter = getattr(request, "ddb_capacity", None)
        if meter is not None:
            response["X-DynamoDB-Requests"] = str(meter.requests)
            response["X-DynamoDB-RCU"] = f"{meter.rcu:g}"
            response["X-DynamoDB-WCU"] = f"{meter.wcu:g}"
        response["X-Request-Id"] = request_id
        return response

    def _answer(self, request: HttpRequest) -> HttpResponse:
        named_token = has_token(request)
        if not named_token:  # counted against the address before anything runs
            window = ratelimit.count(*ratelimit.address_identity(request), anonymous=True)
            request.api_rate_window = window  # type: ignore[attr-defined]
            if not window.allowed:
                return problems.rate_limited()
        response = self.get_response(request)
        if named_token and response.status_code == 401:  # a token that is not valid: its address pays
            window = ratelimit.count(*ratelimit.address_identity(request), anonymous=True)
            request.api_rate_window = window  # type: ignore[attr-defined]
            if not window.allowed:
                return problems.rate_limited()
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view's exception under ``/api/`` (ninja handles its operations'; this takes the rest): a problem."""
        if not request.path.startswith(PREFIX):
            return None
        return problems.handle(request, exception)
