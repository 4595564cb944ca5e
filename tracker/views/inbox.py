"""The inbox page (mark all read, open one) and the Watch / Unwatch buttons of an issue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from ddbmodels.inbox import Notification
from tracker.models import Membership
from tracker.selectors.inbox import inbox_page, notification_find
from tracker.selectors.issues import project_issue_access
from tracker.services import inbox as inbox_services
from tracker.views.base import tenant_view
from tracker.views.issue_page import issue_kwargs

WatchChange = Callable[..., None]  # inbox_services.issue_watch or issue_unwatch


@dataclass(frozen=True)
class Row:
    """A notification as the inbox lists it: the time short ("14:05" today, "Nov 24" this year, else the date)."""

    note: Notification
    when: str
    full: str  # "2026-11-24 14:05 UTC": the time's title


def time_label(at: datetime, now: datetime) -> str:
    """Today: "14:05"; this year: "Nov 24"; before: "2025-11-24" (UTC, as the page says)."""
    if at.date() == now.date():
        return at.strftime("%H:%M")
    if at.year == now.year:
        return f"{at:%b} {at.day}"
    return at.strftime("%Y-%m-%d")


@tenant_view
def inbox(request: HttpRequest, membership: Membership) -> HttpResponse:
    page = inbox_page(membership=membership, cursor=request.GET.get("cursor"))
    now = utcnow()
    rows = [Row(note, time_label(note.at, now), f"{note.at:%Y-%m-%d %H:%M} UTC") for note in page.notifications]
    return render(
        request,
        "tracker/inbox.html",
        {"membership": membership, "page": page, "rows": rows, "first_page": not request.GET.get("cursor")},
    )


@require_POST
@tenant_view
def inbox_read_all(request: HttpRequest, membership: Membership) -> HttpResponse:
    marked = inbox_services.inbox_mark_all_read(membership=membership)
    if marked:
        messages.success(request, f"Marked {marked} notification{'s' if marked != 1 else ''} read.")
    else:
        messages.info(request, "Nothing was unread.")
    return redirect("inbox", tenant=membership.tenant.slug)


@require_http_methods(["GET", "POST"])
@tenant_view
def inbox_open(request: HttpRequest, membership: Membership, note: str) -> HttpResponse:
    """Open one notification: its issue's page. Only the inbox's POST (its row's button) marks it read.

    A GET (an old bookmark or e-mail link, a browser's or mail scanner's prefetch) changes nothing:
    it redirects to the issue, the notification as it was (issue 20, finding 14). The POST is
    CSRF-checked like every form.
    """
    if request.method == "POST":
        found = inbox_services.notification_open(membership=membership, event_key=note)
    else:
        found = notification_find(membership=membership, event_key=note)
    if found is None:
        raise Http404("No such notification.")
    if found.kind == Kind.ISSUE_DELETED:  # its page is gone: say so where the reader was
        messages.info(request, f"{found.reference} was deleted.")
        return redirect("inbox", tenant=membership.tenant.slug)
    return redirect("issue_detail", tenant=membership.tenant.slug, project=found.project_key, number=found.number)


@require_POST
@tenant_view
def issue_watch(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    return _watching(membership, project, number, inbox_services.issue_watch)


@require_POST
@tenant_view
def issue_unwatch(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    return _watching(membership, project, number, inbox_services.issue_unwatch)


def _watching(membership: Membership, project: str, number: int, change: WatchChange) -> HttpResponse:
    """Watch or unwatch the issue the URL names, then back to its page."""
    _, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    change(membership=membership, issue=issue)
    return redirect("issue_detail", **issue_kwargs(membership, issue))
