"""Attachment pages: upload (POST multipart from the issue page), download (streamed), detach (POST)."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from ddbmodels.attachments import ATTACHING, AlreadyBegun
from ddbmodels.issues import IssueItem, ProjectItem
from tracker.forms.attachments import AttachmentForm
from tracker.models import Membership
from tracker.selectors.attachments import attachment_access, attachment_get_or_404
from tracker.selectors.issues import project_issue_access
from tracker.services import attachments as attachment_services
from tracker.views.base import tenant_view
from tracker.views.issue_page import issue_kwargs
from tracker.views.uploads import SizeLimitHandler


def _back(membership: Membership, issue: IssueItem) -> HttpResponse:
    return redirect("issue_detail", **issue_kwargs(membership, issue))


# The upload form has one file input: a second file part is a 400 before it is read.
ATTACHMENT_MAX_FILES = 1


@csrf_exempt
@tenant_view
def attachment_upload(request: HttpRequest, membership: Membership, project: str, number: int) -> HttpResponse:
    # Who may attach to which issue is decided before a byte of the body is read: a viewer's (or a
    # stranger's) 50 MB POST is refused without being parsed. tenant_view and these checks touch only
    # the URL and the session. Then the limits go in before the body is parsed, and the CSRF check
    # parses it; so CSRF is checked by csrf_protect inside, after the handler is installed (Django's way).
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    project_item, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot attach files.")
    limit = SizeLimitHandler(request, settings.ATTACHMENT_MAX_BYTES, max_files=ATTACHMENT_MAX_FILES)
    request.upload_handlers = [limit, *request.upload_handlers]
    return _upload(request, membership, project_item, issue, limit)


@csrf_protect
def _upload(
    request: HttpRequest, membership: Membership, project_item: ProjectItem, issue: IssueItem, limit: SizeLimitHandler
) -> HttpResponse:
    form = AttachmentForm(request.POST, request.FILES, max_bytes=limit.limit, cut_off=limit.cut_off)
    context: dict[str, Any] = {"membership": membership, "project": project_item, "issue": issue, "form": form}
    if not form.is_valid():
        return render(request, "tracker/attachments/upload.html", context, status=413 if form.too_large else 400)
    # Storage refusing the file (AttachFailed) is a 503 page with a link back (tracker.error_pages):
    # a browser cannot refill a file input, so a re-rendered form would keep nothing.
    try:
        item = attachment_services.attachment_add(
            membership=membership,
            issue=issue,
            upload=form.cleaned_data["file"],
            filename=form.cleaned_data["filename"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except AlreadyBegun as earlier:  # a double click, a retry, back and submit again: the first result
        state = "is being attached" if earlier.item.state == ATTACHING else "was attached"
        messages.info(request, f"This form was already submitted: {earlier.item.filename} {state}.")
        return _back(membership, issue)
    messages.success(request, f"Attached {item.filename} ({filesizeformat(int(item.size))}).")
    return _back(membership, issue)


@tenant_view
@require_GET
def attachment_download(
    request: HttpRequest, membership: Membership, project: str, number: int, attachment: str
) -> HttpResponse:
    _, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    item = attachment_access(issue=issue, attachment_id=attachment)
    handle = attachment_services.attachment_open(item)  # NotFound (a 404) when storage lost the file
    response = FileResponse(handle, as_attachment=True, filename=item.filename, content_type=item.content_type)
    # Always a download, never rendered in our origin: an uploaded HTML or SVG file cannot script the site.
    response["Content-Security-Policy"] = "sandbox"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return cast(HttpResponse, response)  # a streaming response; tenant_view's type names only HttpResponse


@tenant_view
@require_POST
def attachment_detach(
    request: HttpRequest, membership: Membership, project: str, number: int, attachment: str
) -> HttpResponse:
    _, issue = project_issue_access(tenant=membership.tenant, project_key=project, number=number)
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot detach files.")
    item = attachment_get_or_404(issue=issue, attachment_id=attachment, consistent=True)
    # Not attached (any more): a 409 page saying what it is now (tracker.error_pages).
    if attachment_services.attachment_detach(membership=membership, issue=issue, attachment=item):
        messages.success(request, f"Detached {item.filename}.")
    else:
        messages.warning(request, f"{item.filename} was detached; its file will be deleted in a few minutes.")
    return _back(membership, issue)
