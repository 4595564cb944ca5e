"""Bulk edit (``POST /t/<team>/p/<KEY>/bulk/``): the list page's bulk bar, back to the same list with the outcome.

Each chosen issue is changed on the version its row showed (``services.bulk``); the outcome of every
row is one message on the list it came from: changed, already done by this form, unchanged, or not
changed and why. Bad input changes nothing and says so: on the list for what a person can choose
(nothing to change, a label or assignee refused), a 400 page for a post no rendered bar sends (a row
without its version or chosen twice, a status not offered, a damaged key).
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from ddbmodels.core.errors import InvalidInput
from ddbmodels.issues import UNSET
from tracker.forms.bulk import NO_MILESTONE, NOBODY, BulkForm, label_names, removed_label_names
from tracker.issue_terms import PRIORITY_LABELS, STATUS_LABELS
from tracker.models import Membership
from tracker.selectors.milestones import milestone_names
from tracker.selectors.projects import project_access
from tracker.services import bulk as bulk_services
from tracker.services.bulk import BulkChange, RowOutcome
from tracker.views.base import tenant_view

NOTHING_CHANGED = "Nothing was changed."


def _back(request: HttpRequest, membership: Membership, project_key: str, wanted: str) -> str:
    """Where to go afterwards: ``next`` if it is a page of this team on this site, else the project's list."""
    team = f"/t/{membership.tenant.slug}/"
    if wanted.startswith(team) and url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()}):
        return wanted
    return reverse("issue_list", kwargs={"tenant": membership.tenant.slug, "project": project_key})


def _what(change: BulkChange, milestone: str) -> str:
    """What the change did to each changed issue, in a team's words ("now Resolved; assigned to bob")."""
    parts = []
    if change.status:
        parts.append(f"now {STATUS_LABELS.get(change.status, change.status)}")
    if change.assignee is None:
        parts.append("unassigned")
    elif isinstance(change.assignee, str):
        parts.append(f"assigned to {change.assignee}")
    if change.priority:
        parts.append(f"priority {PRIORITY_LABELS.get(change.priority, change.priority)}")
    if change.labels_add:
        parts.append(f"labelled {', '.join(sorted(change.labels_add))}")
    if change.labels_remove:
        removed = sorted({name.lower() for name in change.labels_remove})  # a stored capital one goes too
        parts.append(f"no longer labelled {', '.join(removed)}")
    if change.milestone is None:
        parts.append("out of its milestone")
    elif isinstance(change.milestone, str):
        parts.append(f"in milestone {milestone}" if milestone else "in the chosen milestone")
    return "; ".join(parts)


def _said(outcomes: list[RowOutcome], what: str) -> list[tuple[int, str]]:
    """The outcome as messages (level, text): one line a kind of outcome, the issues named, what changed said."""

    def refs(kind: str) -> str:
        return ", ".join(row.reference for row in outcomes if row.outcome == kind)

    lines: list[tuple[int, str]] = []
    if changed := refs(bulk_services.CHANGED):
        lines.append((messages.SUCCESS, f"Changed {changed}: {what}."))
    if replayed := refs(bulk_services.REPLAYED):
        lines.append((messages.INFO, f"Already done by this form (sent before): {replayed}; nothing changed twice."))
    if unchanged := refs(bulk_services.UNCHANGED):
        lines.append((messages.INFO, f"Already as asked, left alone: {unchanged}."))
    refused = [f"{row.reference} ({row.why})" for row in outcomes if row.outcome == bulk_services.REFUSED]
    if refused:
        lines.append((messages.ERROR, f"Not changed: {'; '.join(refused)}."))
    return lines


@tenant_view
@require_POST
def bulk_edit(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot change issues.")
    form = BulkForm(request.POST)
    valid = form.is_valid()
    back = _back(request, membership, project_item.project_key, str(form.cleaned_data.get("next") or ""))
    if not valid:
        problems = " ".join([str(error) for errors in form.errors.values() for error in errors] + [NOTHING_CHANGED])
        if form.damaged:
            context = {
                "heading": "That did not work",
                "message": problems,
                "back_url": back,
                "back_label": "Back to the list",
            }
            return render(request, "400.html", context, status=400)
        messages.error(request, problems)
        return redirect(back)
    data = form.cleaned_data
    assignee = data["assignee"].strip()
    milestone = data["milestone"].strip()
    change = BulkChange(
        status=data["status"] or None,
        assignee=UNSET if not assignee else None if assignee == NOBODY else assignee,
        priority=data["priority"] or None,
        labels_add=label_names(data["labels_add"]),
        labels_remove=removed_label_names(data["labels_remove"]),
        milestone=UNSET if not milestone else None if milestone == NO_MILESTONE else milestone,
    )
    try:
        outcomes = bulk_services.bulk_change(
            membership=membership,
            project=project_item,
            versions=data["versions"],
            change=change,
            token=data["idempotency_key"] or "",
        )
    except InvalidInput as refused:
        messages.error(request, f"{refused} {NOTHING_CHANGED}")
        return redirect(back)
    name = ""
    if isinstance(change.milestone, str):
        names = milestone_names(tenant=project_item.tenant, project_key=project_item.project_key)
        name = names.get(change.milestone, "")
    for level, text in _said(outcomes, _what(change, name)):
        messages.add_message(request, level, text)
    return redirect(back)
