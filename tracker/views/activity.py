"""The team's activity feed: everything that happened on one day, newest first, a day at a time."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ddbmodels.core.keys import utcnow
from tracker.exceptions import BadRequest
from tracker.models import Membership
from tracker.selectors.activity import tenant_day_page
from tracker.views.base import tenant_view

BAD_DAY = "The day must be a date written as YYYY-MM-DD, for example 2026-11-23."


def _day(raw: str | None) -> date:
    """The ``?day=`` asked for (today, UTC, when absent); BadRequest (400) when it is not a date."""
    if not raw:
        return utcnow().date()
    try:
        if len(raw) != 10:
            raise ValueError
        return date.fromisoformat(raw)
    except ValueError as error:
        raise BadRequest(BAD_DAY) from error


@tenant_view
def tenant_activity(request: HttpRequest, membership: Membership) -> HttpResponse:
    page = tenant_day_page(tenant=membership.tenant.slug, day=_day(request.GET.get("day")))
    return render(request, "tracker/activity.html", {"membership": membership, "page": page})
