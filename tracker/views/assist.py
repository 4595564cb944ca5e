"""The text boxes' helpers: suggestions as one types (``autocomplete``) and the markdown preview (``preview``).

Both answer the team's members and viewers only (another team's URL is a 404, as everywhere) and
change nothing. ``static/tracker/autocomplete.js`` and ``static/tracker/preview.js`` call them;
without JavaScript the issue and comment forms' "Preview" button shows the same preview.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_POST

from tracker.models import Membership
from tracker.selectors.assist import (
    NOTHING_TO_PREVIEW,
    PREFIX_MAX,
    label_suggestions,
    markdown_preview,
    member_suggestions,
    preview_error,
)
from tracker.views.base import tenant_view

KINDS = ("member", "label")


def _bad(message: str) -> HttpResponse:
    """A 400 in plain words: the request names nothing that can be answered; nothing was read."""
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


@tenant_view
@require_GET
def autocomplete(request: HttpRequest, membership: Membership) -> HttpResponse:
    """``?kind=member|label&q=<prefix>[&assignable=1]`` → ``[{"value", "label", "colour"}, …]`` (≤ 10)."""
    kind = request.GET.get("kind", "")
    prefix = request.GET.get("q", "")
    if kind not in KINDS:
        return _bad("kind must be member or label.")
    if len(prefix) > PREFIX_MAX:
        return _bad(f"A prefix holds at most {PREFIX_MAX} characters.")
    if kind == "label":
        found = label_suggestions(tenant=membership.tenant, prefix=prefix)
    else:
        assignable = request.GET.get("assignable") == "1"
        found = member_suggestions(tenant=membership.tenant, prefix=prefix, assignable=assignable)
    response = JsonResponse([s.as_json() for s in found], safe=False)
    response["Cache-Control"] = "private, no-store"  # the team's names: never kept by a shared cache
    return response


@tenant_view
@require_POST
def preview(request: HttpRequest, membership: Membership) -> HttpResponse:
    """``body`` → the sanitised HTML the issue page will show of it (a fragment); 400 above the length limit."""
    body = request.POST.get("body", "")
    error = preview_error(body)
    if error:
        return _bad(error)
    html = markdown_preview(tenant=membership.tenant, text=body) or format_html(
        '<p class="muted">{}</p>', NOTHING_TO_PREVIEW
    )
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "private, no-store"
    return response
