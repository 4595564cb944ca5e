"""Middleware: the capacity meter of every request, and the one error path.

``CapacityMiddleware``: every DynamoDB call a request makes, added up and recorded. The meter
is attached as ``request.ddb_capacity`` so a template (the admin's footer) can show it —
complete up to the moment it is rendered, hence "so far". After the response, the totals are
added to the rolling aggregates in Redis by URL name and by access pattern
(``tracker.capacity_stats``).

An API call (``/api/``) counts as page ``api:<operation>`` and under its token (kind ``token``).

``ErrorPageMiddleware``: a domain error (or a bad request) a view raises becomes its page
(``tracker.error_pages``: 404, 400, 409, 503), for the site and the admin alike; and every 503,
a form's included, tells the client when to retry.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from ddbmodels.core import capacity
from tracker import capacity_stats
from tracker.error_pages import RETRY_AFTER_SECONDS, error_response


class CapacityMiddleware:
    """Wrap each request in ``capacity.measure()``; record its totals by URL name afterwards."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with capacity.measure() as meter:
            request.ddb_capacity = meter  # type: ignore[attr-defined]
            response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if match is not None and match.url_name:
            # An API operation is named by its function (``issue_list``, as a page may be): ``api:`` sets it apart.
            # Its token's row (``token``, ``tracker.api.middleware``) gets the same meter.
            api = request.path.startswith("/api/")
            label = f"api:{match.url_name}" if api else match.url_name
            token = getattr(request, "capacity_token", None) if api else None
            capacity_stats.record("page", label, meter, also={"token": token} if token else None)
        return response


class ErrorPageMiddleware:
    """Turn ddbmodels' domain errors and BadRequest into pages; give every 503 a Retry-After."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 503 and not response.has_header("Retry-After"):
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return error_response(request, exception)
