"""Capacity meter per request: every DynamoDB call a request makes, added up and recorded.

The meter is attached as ``request.ddb_capacity`` so a template (the admin's footer) can show
it — complete up to the moment it is rendered, hence "so far". After the response, the totals
are added to the rolling aggregates in Redis by URL name and by access pattern
(``tracker.capacity_stats``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from ddbmodels.core import capacity
from tracker import capacity_stats


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
            capacity_stats.record("page", match.url_name, meter)
        return response
