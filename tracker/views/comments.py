"""Comment pages: add (POST from the issue page), edit one's own (a page), delete one's own (POST)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from ddbmodels.comments import CommentItem
from ddbmodels.core.errors import ChangedSinceRead, IssueDeleted
from ddbmodels.issues import IssueItem, ProjectItem
from tracker.forms.comments import CommentDeleteForm, CommentEditForm, CommentForm
from tracker.models import Membership
from tracker.selectors.assist import text_preview
from tracker.selectors.comments import comment_access, comment_current, comment_cursor
from tracker.selectors.issues import issue_deleted, project_issue_access
from tracker.services import comments as comment_services
from tracker.views.base import as_typed, posted_version, previewed, tenant_view
from tracker.views.issue_page import issue_page_context

STALE_MESSAGE = (
    "This comment was changed since you opened it, so your edit was not saved. "
    "Its text now is shown below; your text is still in the box: save again to replace it."
)
GONE_MESSAGE = "This comment was deleted since you opened it, so your edit was not saved."


def issue_comments_url(membership: Membership, issue: IssueItem, *, comment: CommentItem | None = None) -> str:
    """The issue page at its newest comments (where a new or edited comment is), scrolled to ``comment``."""
    base = reverse(
        "issue_detail",
        kwargs={"tenant": membership.tenant.slug, "project": issue.project_key, "number": int(issue.number)},
    )
    query = urlencode({"comments": comment_cursor(issue=issue, direction="latest")})
    anchor = f"#comment-{comment.comment_id}" if comment is not None else "#comments"
    return f"{base}?{query}{anchor}"


def _own_comment(
    membership: Membership, project: str, number: int, comment: str, *, doing: str
) -> tuple[ProjectItem, IssueItem, CommentItem]:
    """The project, issue and comment the URL names (Http404), if the comment is the member's own (403)."""
    project_item, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    item = comment_access(issue=issue, comment_id=comment)
    if not membership.allows("member") or item.author != membership.user.get_username():
        raise PermissionDenied(f"Only its author can {doing} a comment.")
    return project_item, issue, item


@tenant_view
@require_POST
def comment_add(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    try:
        project_item, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    except Http404:  # a deleted issue says so (its page was open when it was deleted); anything else is a 404
        if issue_deleted(tenant=membership.tenant.slug, project_key=project, number=number):
            return _issue_deleted(request, membership, project, number)
        raise
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot comment.")
    form = CommentForm(request.POST)
    if previewed(request):  # the "Preview" button without JavaScript: the page again, the comment not posted
        context = issue_page_context(membership, project_item, issue, comment_form=as_typed(form))
        context["comment_preview"] = text_preview(tenant=membership.tenant, text=request.POST.get("body", ""))
        return render(request, "tracker/issue_detail.html", context)
    if not form.is_valid():
        context = issue_page_context(membership, project_item, issue, comment_form=form)
        return render(request, "tracker/issue_detail.html", context, status=400)
    try:
        added = comment_services.comment_add(
            membership=membership,
            issue=issue,
            body=form.cleaned_data["body"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except IssueDeleted:  # deleted since the page was opened (or while it was being deleted): nothing was posted
        return _issue_deleted(request, membership, issue.project_key, int(issue.number))
    if added.replayed:  # a double click, a retry, back and submit again: the first comment
        messages.info(request, "This comment was already posted; it was not added twice.")
    else:
        messages.success(request, "Comment posted.")
    return HttpResponseRedirect(issue_comments_url(membership, issue, comment=added.comment))


def _issue_deleted(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    """A 410: the issue was deleted, so the comment was not posted; back to the project's issues."""
    reference = f"{project}-{number}"
    context = {
        "heading": f"{reference} was deleted",
        "message": "Your comment was not posted; nothing of it was stored.",
        "back_url": reverse("issue_list", kwargs={"tenant": membership.tenant.slug, "project": project}),
        "back_label": f"Back to {project}",
    }
    return render(request, "409.html", context, status=410)


@tenant_view
def comment_edit(request: HttpRequest, membership: Membership, project: str, number: int, comment: str) -> HttpResponse:
    project_item, issue, item = _own_comment(membership, project, number, comment, doing="edit")
    form = CommentEditForm(request.POST or None, initial={"body": item.body, "version": int(item.version)})
    context = {"membership": membership, "project": project_item, "issue": issue, "comment": item, "form": form}
    if previewed(request):  # the "Preview" button without JavaScript: nothing saved, the version kept
        preview = text_preview(tenant=membership.tenant, text=request.POST.get("body", ""))
        return render(request, "tracker/comments/edit.html", {**context, "form": as_typed(form), "preview": preview})
    if request.method == "POST" and form.is_valid():
        version = int(item.version or 0)
        try:
            saved = comment_services.comment_edit(
                membership=membership,
                issue=issue,
                comment=item,
                expected_version=form.cleaned_data["version"],
                body=form.cleaned_data["body"],
            )
        except ChangedSinceRead:
            return _stale_edit(request, context, form)
        if int(saved.version or 0) == version:
            messages.info(request, "Nothing to save: the comment is as it was.")
        else:
            messages.success(request, "Comment saved.")
        return HttpResponseRedirect(issue_comments_url(membership, issue, comment=item))
    return render(request, "tracker/comments/edit.html", context)


def _stale_edit(request: HttpRequest, context: dict[str, object], form: CommentEditForm) -> HttpResponse:
    """A 409 with both texts: theirs as it is now, mine still in the box, the form now on the current version."""
    item = context["comment"]
    assert isinstance(item, CommentItem)
    issue = context["issue"]
    assert isinstance(issue, IssueItem)
    current = comment_current(issue=issue, key=item.key)
    post = request.POST.copy()
    post["version"] = str(int(current.version)) if current is not None else post.get("version", "1")
    fresh = CommentEditForm(post)
    fresh.is_valid()
    fresh.add_error(None, STALE_MESSAGE if current is not None else GONE_MESSAGE)
    context = {**context, "form": fresh, "current": current, "gone": current is None}
    return render(request, "tracker/comments/edit.html", context, status=409)


@tenant_view
@require_POST
def comment_delete(
    request: HttpRequest, membership: Membership, project: str, number: int, comment: str
) -> HttpResponse:
    _, issue, item = _own_comment(membership, project, number, comment, doing="delete")
    version = posted_version(request, CommentDeleteForm)
    # Edited since the page was loaded: a 409 page (tracker.error_pages); nothing is deleted.
    comment_services.comment_delete(membership=membership, issue=issue, comment=item, expected_version=version)
    messages.success(request, "Comment deleted.")
    return HttpResponseRedirect(issue_comments_url(membership, issue))
