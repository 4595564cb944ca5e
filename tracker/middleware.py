"""Capacity meter per request: every DynamoDB call a request makes, added up and recorded.

The meter is attached as ``request.ddb_capacity`` so a template (the admin's footer) can show
it — complete up to the moment it is rendered, hence "so far". After the response, the totals
are added to a small rolling aggregate in Redis by URL name (``tracker.admin.capacity``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from ddbmodels import capacity


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
            from tracker.admin.capacity import page_capacity_record  # the admin package loads late

            page_capacity_record(url_name=match.url_name, meter=meter)
        return response
