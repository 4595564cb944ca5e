"""The owners' webhooks page: the team's endpoints, register one (its secret shown once), edit, enable, disable and
delete one, and its delivery log with Redeliver. Anybody but an owner gets a 404, as for another team's page."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidInput, InvalidTransition
from ddbmodels.webhooks import ENDPOINTS_MAX, EndpointItem
from tracker.exceptions import BadRequest
from tracker.forms.webhooks import WebhookCreateForm, WebhookEditForm, WebhookVersionForm
from tracker.models import Membership, Role
from tracker.selectors.webhooks import delivery_log_page, endpoint_access, team_endpoints
from tracker.services.webhooks import endpoints as services
from tracker.views.base import tenant_view


def _wait(seconds: int) -> str:
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def _promises() -> dict[str, object]:
    """What the page says of retries, disabling and keeping, from the settings that make it so."""
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    return {
        "schedule": ", ".join(_wait(s) for s in schedule),
        "retry_hours": round(sum(schedule) / 3600),
        "disable_days": settings.WEBHOOK_DISABLE_AFTER_DAYS,
        "keep_days": settings.WEBHOOK_DELIVERY_DAYS,
    }


CHANGED = "This webhook was changed since you opened it (by a teammate, or by its failures): nothing was saved."


def _owner(membership: Membership) -> None:
    if not membership.allows(Role.OWNER):
        raise Http404("No such page.")


def _endpoint(membership: Membership, webhook_id: str) -> EndpointItem:
    _owner(membership)
    return endpoint_access(membership, webhook_id, consistent=True)


def _detail_url(membership: Membership, endpoint_id: str) -> str:
    return reverse("webhook_detail", kwargs={"tenant": membership.tenant.slug, "webhook": endpoint_id})


@require_http_methods(["GET", "POST"])
@tenant_view
def webhook_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    """The team's endpoints and the form that registers one; a registration answers with its secret, once."""
    _owner(membership)
    created: EndpointItem | None = None
    status = 200
    if request.method == "POST":
        form = WebhookCreateForm(request.POST)
        if form.is_valid() and form.cleaned_data["idempotency_key"]:
            data = form.cleaned_data
            try:
                created, first = services.webhook_create(
                    membership=membership,
                    url=data["url"],
                    events=data["events"],
                    description=data["description"],
                    key=data["idempotency_key"],
                )
            except InvalidInput as refused:
                form.add_error("url" if getattr(refused, "context", {}).get("field") == "url" else None, str(refused))
            except AlreadyExists as refused:
                form.add_error(None, str(refused))
            else:
                if not first:
                    messages.info(request, "This form registered the webhook already; nothing was registered twice.")
                form = WebhookCreateForm()
        elif form.is_valid():
            form.add_error(None, "This form is missing its key: reload the page and send it again.")
        if form.errors:
            status = 400
    else:
        form = WebhookCreateForm()
    endpoints = team_endpoints(membership.tenant.slug)
    return render(
        request,
        "tracker/webhooks/list.html",
        {
            "membership": membership,
            "endpoints": endpoints,
            "form": form,
            "created": created,
            "full": len(endpoints) >= ENDPOINTS_MAX,
            "most": ENDPOINTS_MAX,
            **_promises(),
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
@tenant_view
def webhook_detail(request: HttpRequest, membership: Membership, webhook: str) -> HttpResponse:
    """One endpoint: its settings (edited on its version), enable/disable, delete, and its delivery log."""
    endpoint = _endpoint(membership, webhook)
    status = 200
    if request.method == "POST":
        form = WebhookEditForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.webhook_update(
                    membership=membership,
                    endpoint_id=endpoint.id,
                    expected_version=data["version"],
                    url=data["url"],
                    events=data["events"],
                    description=data["description"],
                )
            except InvalidInput as refused:
                form.add_error("url" if getattr(refused, "context", {}).get("field") == "url" else None, str(refused))
            except ChangedSinceRead:
                form.add_error(None, CHANGED)
            else:
                messages.success(request, "Saved: the next change is sent as you set it.")
                return redirect(_detail_url(membership, endpoint.id))
        status = 400
    else:
        form = WebhookEditForm(
            initial={
                "url": endpoint.url,
                "events": list(endpoint.events),
                "description": endpoint.description,
                "version": endpoint.version,
            }
        )
    page = delivery_log_page(endpoint, cursor=request.GET.get("cursor") or None)
    return render(
        request,
        "tracker/webhooks/detail.html",
        {"membership": membership, "endpoint": endpoint, "form": form, "log": page, **_promises()},
        status=status,
    )


def _version(request: HttpRequest) -> int:
    form = WebhookVersionForm(request.POST)
    if not form.is_valid():
        raise BadRequest("This form is missing the version of the webhook it was shown with: reload the page.")
    return int(form.cleaned_data["version"])


@require_POST
@tenant_view
def webhook_switch(request: HttpRequest, membership: Membership, webhook: str) -> HttpResponse:
    """Enable or disable an endpoint (``action`` = enable | disable) on the version its page showed."""
    endpoint = _endpoint(membership, webhook)
    action = request.POST.get("action")
    if action not in ("enable", "disable"):
        raise BadRequest("Choose Enable or Disable.")
    try:
        services.webhook_update(
            membership=membership,
            endpoint_id=endpoint.id,
            expected_version=_version(request),
            active=action == "enable",
        )
    except ChangedSinceRead:
        messages.error(request, CHANGED)
    else:
        if action == "enable":
            messages.success(request, "Enabled: the next change is sent to it.")
        else:
            messages.success(request, "Disabled: nothing is sent to it until it is enabled again.")
    return redirect(_detail_url(membership, endpoint.id))


@require_POST
@tenant_view
def webhook_delete(request: HttpRequest, membership: Membership, webhook: str) -> HttpResponse:
    """Delete an endpoint on the version its page showed: nothing more is sent to it."""
    endpoint = _endpoint(membership, webhook)
    try:
        services.webhook_delete(membership=membership, endpoint_id=endpoint.id, expected_version=_version(request))
    except ChangedSinceRead:
        messages.error(request, CHANGED)
        return redirect(_detail_url(membership, endpoint.id))
    messages.success(request, f"Deleted the webhook to {endpoint.url}: nothing more is sent to it.")
    return redirect(reverse("webhook_list", kwargs={"tenant": membership.tenant.slug}))


@require_POST
@tenant_view
def webhook_redeliver(request: HttpRequest, membership: Membership, webhook: str, delivery: str) -> HttpResponse:
    """Send a delivery again (same webhook-id): the sender tries it within a minute."""
    endpoint = _endpoint(membership, webhook)
    try:
        services.webhook_redeliver(membership=membership, endpoint=endpoint, delivery_id=delivery)
    except InvalidTransition as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, "Sending it again within a minute, with the same webhook-id.")
    return redirect(_detail_url(membership, endpoint.id))
