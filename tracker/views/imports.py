"""Import pages (owners): upload a GitHub export for a new project, watch its import to the end."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods

from ddbmodels.core.errors import AlreadyExists
from tracker.forms.imports import ImportForm
from tracker.models import Membership
from tracker.selectors.imports import import_access, import_progress
from tracker.services.imports import import_queue
from tracker.views.base import tenant_view
from tracker.views.uploads import SizeLimitHandler

OWNERS_ONLY = "Only owners import issues."
IMPORT_MAX_FILES = 1


def _owner(membership: Membership) -> None:
    if not membership.allows("owner"):
        raise PermissionDenied(OWNERS_ONLY)


@csrf_exempt
def import_new(request: HttpRequest, tenant: str) -> HttpResponse:
    # The size limit must be in place before the body is parsed, and the CSRF check parses it; so
    # CSRF is checked by csrf_protect inside, after the handler is installed (as attachment uploads do).
    # The form has one file input: a second file part is a 400 before it is read (Django's own cap is 100).
    limit = SizeLimitHandler(request, settings.IMPORT_MAX_BYTES, max_files=IMPORT_MAX_FILES)
    request.upload_handlers = [limit, *request.upload_handlers]
    return _import_new(request, tenant)


@tenant_view
@require_http_methods(["GET", "POST"])
def _import_new(request: HttpRequest, membership: Membership) -> HttpResponse:
    _owner(membership)  # before the body is read: a non-owner's upload is not even parsed
    return _import_form(request, membership)


@csrf_protect
def _import_form(request: HttpRequest, membership: Membership) -> HttpResponse:
    slug = membership.tenant.slug
    if request.method != "POST":
        form = ImportForm(max_bytes=settings.IMPORT_MAX_BYTES)
        return render(request, "tracker/imports/new.html", {"form": form, "membership": membership})
    limit = next(h for h in request.upload_handlers if isinstance(h, SizeLimitHandler))
    form = ImportForm(request.POST, request.FILES, max_bytes=limit.limit, cut_off=limit.cut_off)
    if form.is_valid():
        data = form.cleaned_data
        try:
            queued = import_queue(
                membership=membership,
                key=data["key"],
                name=data["name"],
                data=form.data_bytes,
                filename=data["file"].name or "export.json",
                preview=form.preview,
                idempotency_key=data["idempotency_key"],
            )
        except AlreadyExists:
            form.add_error("key", f"{membership.tenant.name} already has a project with this key; choose a new one.")
        else:
            if not queued.first:
                messages.info(request, "This form was already submitted: here is its import.")
            return redirect("import_detail", tenant=slug, import_id=queued.import_id)
    context: dict[str, Any] = {"form": form, "membership": membership}
    return render(request, "tracker/imports/new.html", context, status=413 if form.too_large else 200)


@tenant_view
@require_GET
def import_detail(request: HttpRequest, membership: Membership, import_id: str) -> HttpResponse:
    _owner(membership)
    state = import_access(tenant=membership.tenant.slug, import_id=import_id)
    context = {
        "membership": membership,
        "state": state,
        "progress": import_progress(state),
        "status_url": reverse("import_status", kwargs={"tenant": membership.tenant.slug, "import_id": import_id}),
    }
    return render(request, "tracker/imports/detail.html", context)


@tenant_view
@require_GET
def import_status(request: HttpRequest, membership: Membership, import_id: str) -> JsonResponse:
    """Status, stage, done/total and the summary, polled by static/tracker/import.js."""
    _owner(membership)
    state = import_access(tenant=membership.tenant.slug, import_id=import_id)
    response = JsonResponse(import_progress(state))
    response["Cache-Control"] = "no-store"
    return response
