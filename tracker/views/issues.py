"""Issue pages: create, detail, edit, status change, delete (the lists are ``tracker.views.issue_lists``)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, MilestoneNotOpen, SequenceContention
from ddbmodels.issues import IssueItem, ProjectItem
from tracker.exceptions import BadRequest
from tracker.forms.issues import (
    EDITABLE,
    EDITABLE_LABELS,
    PRIORITY_LABELS,
    STATUS_LABELS,
    DeleteForm,
    IssueForm,
    StatusForm,
    edit_snapshot,
    merge_edit,
    milestone_choices,
    read_base,
    sign_base,
)
from tracker.models import Membership
from tracker.selectors.assist import text_preview
from tracker.selectors.issues import issue_access, issue_delete_preview, project_issue_access
from tracker.selectors.labels import label_catalogue
from tracker.selectors.milestones import milestone_list, milestone_names, open_milestones
from tracker.selectors.projects import project_access
from tracker.selectors.tenants import tenant_usernames
from tracker.services import issues as issue_services
from tracker.views.base import MISSING_VERSION, as_typed, posted_version, previewed, tenant_view
from tracker.views.issue_page import issue_kwargs, issue_page_context

STALE_MESSAGE = (
    "This issue was changed by someone else since you opened it. "
    "Your changes were not saved: review the current version below and apply them again."
)


@tenant_view
def issue_create(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot create issues.")
    form = IssueForm(
        request.POST or None,
        assignees=tenant_usernames(tenant=membership.tenant),
        catalogue=label_catalogue(tenant=membership.tenant),
        milestones=open_milestones(tenant=project_item.tenant, project_key=project_item.project_key),
    )
    if previewed(request):  # the "Preview" button without JavaScript: the form as typed, the preview under it
        preview = text_preview(tenant=membership.tenant, text=request.POST.get("description", ""))
        context = {"form": as_typed(form), "project": project_item, "membership": membership, "preview": preview}
        return render(request, "tracker/issue_form.html", context)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            claimed = issue_services.issue_create_claim(
                membership=membership,
                project=project_item,
                title=data["title"],
                description=data["description"],
                priority=data["priority"],
                assignee=data["assignee"] or None,
                labels=data["labels"],
                idempotency_key=data["idempotency_key"],
                milestone=data.get("milestone") or None,
            )
        except MilestoneNotOpen as refused:  # closed, or being closed, since the form was shown: nothing written
            form.add_error("milestone", f"{str(refused)[:1].upper()}{str(refused)[1:]}.")
            return render(
                request,
                "tracker/issue_form.html",
                {"form": form, "project": project_item, "membership": membership},
                status=409,
            )
        except SequenceContention:
            # Every retry lost the race for the next number; nothing was written.
            form.add_error(None, "This project is very busy right now and no number was free. Please submit again.")
            return render(
                request,
                "tracker/issue_form.html",
                {"form": form, "project": project_item, "membership": membership},
                status=503,
            )
        issue = claimed.item
        if claimed.replayed:  # a double click, a retry, back and submit again: the first result
            messages.info(request, f"This form was already submitted: it created {issue.reference}.")
        else:
            messages.success(request, f"Created {issue.reference}.")
        return redirect("issue_detail", **issue_kwargs(membership, issue))
    return render(request, "tracker/issue_form.html", {"form": form, "project": project_item, "membership": membership})


@tenant_view
def issue_detail(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    project_item, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    context = issue_page_context(
        membership,
        project_item,
        issue,
        comments_cursor=request.GET.get("comments"),
        history_cursor=request.GET.get("history"),
    )
    return render(request, "tracker/issue_detail.html", context)


@tenant_view
def issue_edit(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot edit issues.")
    issue = issue_access(project=project_item, number=number, consistent=True)
    assignees = tenant_usernames(tenant=membership.tenant)
    standing = _standing(membership, assignees)
    snapshot = edit_snapshot(issue)
    initial = {
        **snapshot,
        "labels": ", ".join(snapshot["labels"]),
        "version": int(issue.version or 0),
        "base": sign_base(snapshot),
    }
    # What the editor loaded decides what they changed: a field as it was then is a field left alone.
    loaded = (read_base(request.POST.get("base") or "") if request.method == "POST" else None) or snapshot
    form = IssueForm(
        request.POST or None,
        initial=initial,
        assignees=assignees,
        current=loaded,
        standing=standing,
        catalogue=label_catalogue(tenant=membership.tenant),
        milestones=_milestones(project_item, issue),
    )
    if previewed(request):  # the "Preview" button without JavaScript: nothing saved, version and base kept
        preview = text_preview(tenant=membership.tenant, text=request.POST.get("description", ""))
        context = {"form": as_typed(form), "project": project_item, "membership": membership, "issue": issue}
        return render(request, "tracker/issue_form.html", {**context, "preview": preview})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if data["version"] is None:
            form.add_error(None, MISSING_VERSION)
        else:
            version = int(issue.version or 0)
            try:
                issue_services.issue_update(
                    membership=membership,
                    issue=issue,
                    expected_version=data["version"],
                    title=data["title"],
                    description=data["description"],
                    priority=data["priority"],
                    assignee=data["assignee"] or None,
                    labels=data["labels"],
                    milestone=data["milestone"] or None,
                )
            except ChangedSinceRead:
                return _stale_edit(request, membership, project_item, issue, data, assignees, standing)
            except InvalidInput as refused:
                if "milestone" not in refused.context:
                    raise  # a 400 page (tracker.error_pages)
                form.add_error("milestone", f"{str(refused)[:1].upper()}{str(refused)[1:]}.")  # MilestoneNotOpen's
            else:
                if int(issue.version or 0) == version:
                    messages.info(request, f"Nothing to save: {issue.reference} is as it was.")
                else:
                    messages.success(request, f"Saved {issue.reference}.")
                return redirect("issue_detail", **issue_kwargs(membership, issue))
    return render(
        request,
        "tracker/issue_form.html",
        {"form": form, "project": project_item, "membership": membership, "issue": issue},
    )


def _milestones(project: ProjectItem, issue: IssueItem) -> list[tuple[str, str]]:
    """The edit form's milestones: the project's open ones and the issue's own (the cached list)."""
    listed = milestone_list(tenant=project.tenant, project_key=project.project_key)
    return milestone_choices(listed, issue.milestone)


def _standing(membership: Membership, assignees: list[str]) -> dict[str, str]:
    """Why a member who is not among ``assignees`` cannot be assigned anew: viewers are "viewer now"."""
    everyone = tenant_usernames(tenant=membership.tenant, min_role="viewer")
    return {username: "viewer now" for username in everyone if username not in assignees}


def _stale_edit(
    request: HttpRequest,
    membership: Membership,
    project: ProjectItem,
    issue: IssueItem,
    data: dict[str, Any],
    assignees: list[str],
    standing: dict[str, str],
) -> HttpResponse:
    """A 409 with both changes: theirs merged where only they changed, conflicts side by side.

    Nothing typed is lost and nothing saved by the other person is overwritten unseen: fields only
    they changed take their value in the form, fields we both changed keep the editor's input
    with theirs shown beside it. The form then carries the current version and what it holds now
    (the new base), so saving again is a decision made on what is there.
    """
    fresh = issue_access(project=project, number=int(issue.number), consistent=True)
    theirs = edit_snapshot(fresh)
    mine = {field: data[field] or "" for field in EDITABLE}
    mine["labels"] = sorted(data["labels"] or ())
    merged, taken, conflicts = merge_edit(read_base(data.get("base") or ""), mine, theirs)
    post = request.POST.copy()
    for field in EDITABLE:
        if field != "labels":
            post[field] = merged[field]
    catalogue = label_catalogue(tenant=membership.tenant)  # the team's labels as ticked boxes, as the edit form
    offered = {label.name for label in catalogue if label.in_use}
    post.setlist("picked", [name for name in merged["labels"] if name in offered])
    post["labels"] = ", ".join(name for name in merged["labels"] if name not in offered)
    post["version"] = str(int(fresh.version or 0))
    post["base"] = sign_base(theirs)
    choices = _milestones(project, fresh)
    form = IssueForm(
        post, assignees=assignees, current=theirs, standing=standing, catalogue=catalogue, milestones=choices
    )
    form.is_valid()
    form.add_error(None, STALE_MESSAGE)
    names = milestone_names(tenant=project.tenant, project_key=project.project_key)

    def shown(values: dict[str, Any], field: str) -> str:
        value = values[field]
        if field == "labels":
            return ", ".join(value) or "—"
        if field == "priority":
            return PRIORITY_LABELS.get(value, value)
        if field == "milestone":
            return names.get(value, value) or "—"
        return str(value) or "—"

    context = {
        "form": form,
        "project": project,
        "membership": membership,
        "issue": issue,
        "current": fresh,
        "current_milestone": names.get(theirs["milestone"], "") if theirs["milestone"] else "",
        "conflicts": [(EDITABLE_LABELS[f], shown(theirs, f), shown(mine, f)) for f in conflicts],
        "taken": [(EDITABLE_LABELS[f], shown(theirs, f)) for f in taken],
    }
    return render(request, "tracker/issue_form.html", context, status=409)


@tenant_view
@require_POST
def issue_status(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    project_item, issue = project_issue_access(
        tenant=membership.tenant, project_key=project, number=number, consistent=True
    )
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot change issues.")
    form = StatusForm(request.POST)
    if not form.is_valid():
        raise BadRequest("Unknown status." if "to" in form.errors else MISSING_VERSION)
    # A move the workflow forbids, or a stale version: a 409 page in those words (tracker.error_pages).
    issue_services.issue_change_status(
        membership=membership,
        project=project_item,
        issue=issue,
        expected_version=form.cleaned_data["version"],
        to=form.cleaned_data["to"],
    )
    messages.success(request, f"{issue.reference} is now {STATUS_LABELS[issue.status]}.")
    return redirect("issue_detail", **issue_kwargs(membership, issue))


@tenant_view
@require_http_methods(["GET", "POST"])
def issue_delete(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    """GET: the page that says what deleting removes (it changes nothing); POST: ``issue_services.issue_delete``."""
    project_item, issue = project_issue_access(
        tenant=membership.tenant, project_key=project, number=number, consistent=True
    )
    if not membership.allows("owner"):
        raise PermissionDenied("Only owners delete issues.")
    if request.method == "GET":
        context = {
            "membership": membership,
            "project": project_item,
            "issue": issue,
            "preview": issue_delete_preview(issue=issue),
        }
        return render(request, "tracker/issue_delete.html", context)
    version = posted_version(request, DeleteForm)
    # A stale version is a 409 page (tracker.error_pages).
    issue_services.issue_delete(membership=membership, project=project_item, issue=issue, expected_version=version)
    messages.success(
        request, f"Deleted {issue.reference} with its comments, files and history; its number stays taken."
    )
    return redirect("issue_list", tenant=membership.tenant.slug, project=project_item.project_key)
