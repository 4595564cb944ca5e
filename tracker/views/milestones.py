"""A project's milestones (``/t/<team>/p/<KEY>/milestones/``): the list with progress, new, edit, close, reopen.

Members manage them, viewers read. Progress is the milestone's counts as the project's counts refresh left
them (the list is one Query, cached); each milestone links to its issues (``milestone:"<name>"`` on the list).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from ddbmodels.issues import ProjectItem
from ddbmodels.milestones import MilestoneItem, NameTaken, TooMany
from tracker.forms.idempotency import IdempotentForm
from tracker.forms.milestones import CloseForm, IssueMilestoneForm, MilestoneForm, VersionOnly
from tracker.issue_query import IssueQuery
from tracker.models import Membership
from tracker.selectors import milestones as milestone_selectors
from tracker.selectors.issues import issue_access
from tracker.selectors.projects import project_access
from tracker.services import milestone_close as closing
from tracker.services import milestones as milestone_services
from tracker.views.base import posted_version, tenant_view

STALE = "Somebody saved this milestone since you opened it: here it is as it is now; your changes are in the form."


def _list_url(membership: Membership, project: ProjectItem) -> str:
    return reverse("milestone_list", kwargs={"tenant": membership.tenant.slug, "project": project.project_key})


def issues_url(membership: Membership, project: ProjectItem, milestone: MilestoneItem, status: str = "") -> str:
    """The project's issue list filtered to the milestone (``milestone:"v1.2"``)."""
    query = IssueQuery(milestone=milestone.name, status=status or None).text()
    url = reverse("issue_list", kwargs={"tenant": membership.tenant.slug, "project": project.project_key})
    return f"{url}?{urlencode({'q': query})}"


def _member(membership: Membership) -> None:
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot change milestones.")


def _members_milestone(membership: Membership, project: str, milestone_id: str) -> tuple[ProjectItem, MilestoneItem]:
    """The project (404 first), then the role (403), then the milestone (404): what each change of one checks."""
    project_item = project_access(tenant=membership.tenant, key=project)
    _member(membership)
    milestone = milestone_selectors.milestone_access(
        tenant=project_item.tenant, project_key=project, milestone_id=milestone_id
    )
    return project_item, milestone


@tenant_view
def milestone_list(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    found = milestone_list_rows(membership, project_item)
    return render(
        request,
        "tracker/milestones/list.html",
        {
            "project": project_item,
            "membership": membership,
            "open_rows": [row for row in found if row.milestone.state != "closed"],
            "closed_rows": [row for row in found if row.milestone.state == "closed"],
        },
    )


@dataclass(frozen=True)
class Row:
    """A milestone as the list shows it: its progress and its links."""

    milestone: MilestoneItem
    total: int
    done: int
    percent: int
    issues_url: str
    open_url: str
    resumable: bool = False  # closing for a while: its job may have stopped (not a close running in a request)
    close_said: str = ""  # the last close's outcome (who, what stayed and why) until the next close or edit


def milestone_list_rows(membership: Membership, project: ProjectItem) -> list[Row]:
    rows = []
    for milestone in milestone_selectors.milestone_list(tenant=project.tenant, project_key=project.project_key):
        total, done = milestone.total(), milestone.done()
        rows.append(
            Row(
                milestone=milestone,
                total=total,
                done=done,
                percent=round(100 * done / total) if total else 0,
                issues_url=issues_url(membership, project, milestone),
                open_url=issues_url(membership, project, milestone, "open"),
                resumable=closing.resumable(milestone),
                close_said=milestone.close_said(),
            )
        )
    return rows


@tenant_view
def milestone_create(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    _member(membership)
    form = MilestoneForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            milestone, created = milestone_services.milestone_create(
                membership=membership,
                project=project_item,
                name=data["name"],
                due=data["due"],
                description=data["description"],
                idempotency_key=data["idempotency_key"],
            )
        except NameTaken:
            form.add_error("name", f"{project_item.project_key} already has a milestone called {data['name']}.")
        except TooMany as error:  # "WEB has 200 milestones, the most a project keeps"
            form.add_error(None, f"{error}: rename a closed one you no longer need and reopen it instead.")
        else:
            if created:
                messages.success(request, f"Milestone {milestone.name} created.")
            else:
                messages.info(request, f"This form was already sent: milestone {milestone.name} exists, nothing new.")
            return redirect(_list_url(membership, project_item))
    return render(
        request,
        "tracker/milestones/form.html",
        {"form": form, "project": project_item, "membership": membership, "milestone": None},
    )


@tenant_view
def milestone_edit(request: HttpRequest, membership: Membership, project: str, milestone_id: str) -> HttpResponse:
    project_item, milestone = _members_milestone(membership, project, milestone_id)
    initial = {
        "name": milestone.name,
        "due": milestone.due or None,
        "description": milestone.description or "",
        "version": int(milestone.version or 0),
    }
    form = MilestoneForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            milestone_services.milestone_update(
                membership=membership,
                milestone=milestone,
                expected_version=int(data["version"] or 0),
                name=data["name"],
                due=data["due"],
                description=data["description"],
            )
        except NameTaken:
            form.add_error("name", f"{project_item.project_key} already has a milestone called {data['name']}.")
        except ChangedSinceRead:
            now = milestone_selectors.milestone_access(
                tenant=project_item.tenant, project_key=project, milestone_id=milestone_id
            )
            if _as_posted(now, data):  # this person's own form, sent twice: saved the first time
                messages.info(request, f"This form was already sent: milestone {now.name} is saved as it says.")
                return redirect(_list_url(membership, project_item))
            post = request.POST.copy()
            post["version"] = str(int(now.version or 0))
            form = MilestoneForm(post, initial=initial)
            form.is_valid()
            form.add_error(None, STALE)
            status = 409
        else:
            messages.success(request, f"Milestone {data['name']} saved.")
            return redirect(_list_url(membership, project_item))
    context = {"form": form, "project": project_item, "membership": membership, "milestone": milestone}
    return render(request, "tracker/milestones/form.html", context, status=status)


def _as_posted(milestone: MilestoneItem, data: dict[str, Any]) -> bool:
    """Review F19: the milestone holds what the edit form says (then a stale version is the form's own second
    sending, not somebody else's save)."""
    due = data["due"].isoformat() if data["due"] else None
    posted = (" ".join(data["name"].split()), due, data["description"].strip() or None)
    return (milestone.name, milestone.due or None, milestone.description or None) == posted


@tenant_view
def milestone_close(request: HttpRequest, membership: Membership, project: str, milestone_id: str) -> HttpResponse:
    project_item, milestone = _members_milestone(membership, project, milestone_id)
    if said := _own_close(milestone, _posted_key(request)):
        messages.info(request, said)  # this person's close, sent again: what it did, not a conflict (R3-6)
        return redirect(_list_url(membership, project_item))
    if said := _settled(milestone, "closed"):
        messages.info(request, said)
        return redirect(_list_url(membership, project_item))
    others = [
        m
        for m in milestone_selectors.milestone_list(tenant=project_item.tenant, project_key=project)
        if m.is_open and m.milestone_id != milestone.milestone_id
    ]
    found, more = milestone_selectors.milestone_open_issues(
        tenant=project_item.tenant,
        project_key=project,
        milestone_id=milestone.milestone_id,
        limit=closing.MOVE_IN_REQUEST,
    )
    form = CloseForm(request.POST or None, others=others, initial={"version": int(milestone.version or 0)})
    status = 200
    posted = request.method == "POST" and form.is_valid()  # its page offered the choice: it holds, whatever this
    offered_none = request.method == "POST" and "issues" not in request.POST  # read of the lagging index lists
    if request.method == "POST" and not posted and not offered_none:
        pass  # a posted choice that does not hold (a target closed since, tampered): the form again, its errors
    elif posted or (offered_none and not found):  # its page offered no choice and none is open now: keep
        data = form.cleaned_data if posted else {}
        try:
            closed = closing.milestone_close(
                membership=membership,
                project=project_item,
                milestone=milestone,
                expected_version=int(data.get("version") or posted_version(request, VersionOnly)),
                issues=data.get("issues") or "keep",
                to=data.get("to") or None,
                token=data.get("idempotency_key"),
            )
        except ChangedSinceRead:
            form = CloseForm(None, others=others, initial={"version": int(milestone.version or 0)})
            form.add_error(None, "Somebody saved this milestone since you opened it: look again, then close it.")
            status = 409
        except InvalidInput:  # the target the (cached) list offered is no longer open: offered no more
            name = next((m.name for m in others if m.milestone_id == data.get("to")), "That milestone")
            others = [m for m in others if m.milestone_id != data.get("to")]
            form = CloseForm(request.POST, others=others, initial={"version": int(milestone.version or 0)})
            form.is_valid()
            said = f"{name} is not open any more: choose another milestone."
            if "to" in form.fields:
                form.errors["to"] = form.error_class([said])
            else:  # no other open milestone: the form offers no move now
                form.add_error(None, said)
        else:
            _said(request, closed, project_item)
            return redirect(_list_url(membership, project_item))
    context = {
        "form": form,
        "project": project_item,
        "membership": membership,
        "milestone": milestone,
        "open_issues": found,
        "more": more,
        "limit": closing.MOVE_IN_REQUEST,
        "issues_url": issues_url(membership, project_item, milestone),
    }
    return render(request, "tracker/milestones/close.html", context, status=status)


def _posted_key(request: HttpRequest) -> str | None:
    """The posted form's idempotency key (its bare ULID: the close's token), or None."""
    if request.method != "POST":
        return None
    form = IdempotentForm(request.POST)
    return form.cleaned_data.get("idempotency_key") if form.is_valid() else None


def _own_close(milestone: MilestoneItem, key: str | None) -> str | None:
    """Review R3-6: the close form sent again whose first sending ran (its token is the milestone's close's): what
    that close did or is doing. None: not this form's close."""
    if not key:
        return None
    if milestone.is_closing and milestone.close_token == key:
        return f"Your close is under way: {_being_closed(milestone)}"
    if (milestone.close_outcome() or {}).get("token") == key:
        return milestone.close_said(own=True)
    return None


def _settled(milestone: MilestoneItem, state: str) -> str | None:
    """What a close or reopen says instead of changing anything: the milestone is being closed, or is ``state``
    already (the form sent twice, or somebody did it meanwhile). None: go ahead."""
    if milestone.is_closing:
        return _being_closed(milestone)
    if milestone.state == state:
        return f"Milestone {milestone.name} is {state} already."
    return None


def _being_closed(milestone: MilestoneItem) -> str:
    left = milestone.remaining()
    return (
        f"Milestone {milestone.name} is being closed: its open issues are being moved "
        f"({left} left when last counted); it closes when they are all moved."
    )


def _said(request: HttpRequest, closed: closing.Closed, project: ProjectItem) -> None:
    name = closed.milestone.name
    if closed.job:
        so_far = f" ({closed.moved} moved so far)" if closed.moved else ""
        messages.info(
            request,
            f"Moving the open issues of {name} has started{so_far}; it closes when they are all moved. "
            "Reload this page to see it: its row then says how the close ended.",
        )
        return
    moved = f" {closed.moved} open issue{'s' if closed.moved != 1 else ''} moved." if closed.moved else ""
    listed = ", ".join(f"{ref} ({why})" for ref, why in sorted(closed.refused.items()))
    if not closed.closed:
        were = "were" if len(closed.refused) > 1 else "was"
        why = "; ".join(
            ([f"{listed} {were} not moved"] if closed.refused else []) + ([closed.why] if closed.why else [])
        )
        moved = moved or " Nothing was moved."
        messages.warning(request, f"Milestone {name} stays open: {why}.{moved} Close it again.")
        return
    messages.success(request, f"Milestone {name} closed.{moved}")
    if closed.refused:
        messages.warning(request, f"Not moved: {listed}.")


@tenant_view
@require_POST
def milestone_reopen(request: HttpRequest, membership: Membership, project: str, milestone_id: str) -> HttpResponse:
    project_item, milestone = _members_milestone(membership, project, milestone_id)
    if said := _settled(milestone, "open"):
        messages.info(request, said)
        return redirect(_list_url(membership, project_item))
    milestone_services.milestone_reopen(
        membership=membership, milestone=milestone, expected_version=posted_version(request, VersionOnly)
    )
    messages.success(request, f"Milestone {milestone.name} reopened.")
    return redirect(_list_url(membership, project_item))


@tenant_view
@require_POST
def milestone_resume(request: HttpRequest, membership: Membership, project: str, milestone_id: str) -> HttpResponse:
    """A closing milestone's job again (it stopped): it carries on where it stopped."""
    project_item, milestone = _members_milestone(membership, project, milestone_id)
    if not milestone.is_closing:
        messages.info(request, f"Milestone {milestone.name} is not being closed: nothing to resume.")
    elif not closing.resumable(milestone):  # its close is running (a stale tab's Resume): no second job beside it
        messages.info(request, _being_closed(milestone))
    elif closing.milestone_close_resume(membership=membership, milestone=milestone):
        messages.success(
            request,
            f"Closing {milestone.name} goes on in the background; it closes when its open issues are all moved.",
        )
    else:
        messages.warning(request, "The background queue does not answer; try again in a minute.")
    return redirect(_list_url(membership, project_item))


@tenant_view
@require_POST
def issue_milestone(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    """The issue page's milestone form: one issue into a milestone (or none), on the version the page showed."""
    project_item = project_access(tenant=membership.tenant, key=project)
    _member(membership)
    form = IssueMilestoneForm(request.POST)
    if not form.is_valid():
        raise BadRequest("This form is incomplete: reload the issue's page and choose again.")
    data = form.cleaned_data
    issue = issue_access(project=project_item, number=data["n"], consistent=True)
    changed = milestone_services.issue_milestone_set(
        membership=membership,
        project=project_item,
        issue=issue,
        expected_version=data["v"],
        milestone_id=data["milestone"] or None,
        token=data["idempotency_key"],
    )
    if not changed:
        messages.info(request, f"Nothing to change: {issue.reference} is in that milestone already.")
    else:
        messages.success(request, f"Saved {issue.reference}'s milestone.")
    return redirect("issue_detail", tenant=membership.tenant.slug, project=project_item.project_key, number=data["n"])
