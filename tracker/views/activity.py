"""The team's activity feed (everything that happened on one day, newest first, a day at a time), and removing
a description edit's words from an issue's history."""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from ddbmodels.core.keys import utcnow
from tracker.exceptions import BadRequest
from tracker.models import Membership
from tracker.selectors.activity import description_edit, tenant_day_page
from tracker.selectors.issues import project_issue_access
from tracker.services import history_removal
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


@tenant_view
@require_POST
def history_change_remove(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    """POST ``event`` (a description edit's key): its word diff leaves the history (its editor or an owner).

    Another team's issue, or a key that is no description edit of this issue: 404; not allowed: 403.
    """
    _, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    event = description_edit(issue=issue, key=request.POST.get("event", ""))
    if event is None:
        raise Http404("No such change in this issue's history.")
    forgot = history_removal.description_diff_forget(membership=membership, issue=issue, event=event)
    later = f"{forgot.later} later edit{'s' if forgot.later != 1 else ''}"
    also = f", and from {later} that still showed its words" if forgot.later else ""
    job = " Their notifications are being rewritten without it." if forgot.queued else ""
    if forgot.window_ended:  # the later edits read ended before one took its words out (R4-7)
        job += " Edits after those may still show them: remove their changes too."
    if forgot.removed:
        messages.success(request, f"The change was removed from the history{also}.{job}")
    else:
        messages.info(request, f"This change was already removed from the history{also}.{job}")
    kwargs = {"tenant": membership.tenant.slug, "project": issue.project_key, "number": int(issue.number)}
    url = reverse("issue_detail", kwargs=kwargs)
    return HttpResponseRedirect(f"{url}#history")
