"""Staff "Tracker views": every tenant's projects, issues, orders, in-flight attachments, leaderboards.

Pages over the existing selectors: the same reads the tenants' own pages make, at the same cost
(each selector's docstring says how many RCU; the footer shows what the page used). Data is
changed in the item browser — every row links to its item — or, for attachments, by the
reconcile job, which only staff with audit.run_destructive_jobs may start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ddbmodels.core.keys import utcnow
from ddbmodels.issues import STATUSES
from ddbmodels.orders import OrderItem
from tracker.exceptions import BadRequest
from tracker.forms.admin.staff import LATEST, OLDEST, STAFF_RANGE_LABELS, OrderFindForm, StaffOrdersForm
from tracker.forms.issues import STATUS_LABELS, StatusFilterForm
from tracker.forms.leaderboard import BAD_TOP, TopForm
from tracker.forms.orders import ORDER_STATUS_LABELS, OrderTransitionForm
from tracker.models import Tenant
from tracker.selectors.attachments import STAFF_IN_FLIGHT_LIMIT, staff_attachments_in_flight
from tracker.selectors.issues import issue_list_page, issue_number_next
from tracker.selectors.leaderboard import DEFAULT_TOP, TOP_CHOICES, leaderboard_top
from tracker.selectors.orders import (
    STAFF_LIMIT,
    OrderWindow,
    order_list_page,
    staff_order_find,
    staff_orders_in_range,
    staff_orders_latest,
    staff_orders_oldest,
)
from tracker.selectors.projects import project_access, project_list
from tracker.selectors.tenants import staff_tenant_access, staff_tenants
from tracker.services import orders as order_services
from tracker.services.admin.jobs import reconcile_attachments_start
from tracker.services.permissions import NO_DESTRUCTIVE_JOBS, staff_can_change, staff_can_run_destructive_jobs
from tracker.views.admin.pages import admin_page, item_browser_url

NO_PERMISSION = NO_DESTRUCTIVE_JOBS  # the reconcile job deletes items and files: not tracker.change_tenant


def _page(request: HttpRequest, template: str, title: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return admin_page(request, f"admin/ddb/{template}", title, context, status=status)


def _query(**params: Any) -> str:
    """``?a=1&b=2`` of the non-empty parameters (pager links keep the filters)."""
    return "?" + urlencode({name: value for name, value in params.items() if value not in (None, "")})


def tenant_admin_url(tenant: Tenant) -> str:
    """The Django admin's change page of the tenant (its members)."""
    return reverse("admin:tracker_tenant_change", args=[tenant.pk])


def duration(age: timedelta) -> str:
    """``42 s``, ``5 min 3 s``, ``10 min``, ``2 h 10 min``, ``3 d 4 h``: the two largest units, zeros left out."""
    seconds = int(age.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    units = [(days, "d"), (hours, "h"), (minutes, "min"), (seconds, "s")]
    first = next((i for i, (n, _) in enumerate(units) if n), len(units) - 1)
    return " ".join(f"{n} {unit}" for n, unit in units[first : first + 2] if n or first == len(units) - 1)


# ----------------------------------------------------------------------------- tenants, projects, issues


@require_GET
def tracker_view(request: HttpRequest) -> HttpResponse:
    """Every tenant, with links to its projects, orders, attachments in flight and leaderboard."""
    rows = [{"tenant": tenant, "admin_url": tenant_admin_url(tenant)} for tenant in staff_tenants()]
    return _page(request, "tracker_index.html", "Tracker", {"rows": rows})


@require_GET
def tenant_projects_view(request: HttpRequest, slug: str) -> HttpResponse:
    """A tenant's projects (index Query + BatchGetItem, or Redis) with their live issue counts."""
    tenant = staff_tenant_access(slug=slug)
    rows = [
        {
            "project": project,
            "counts": [(STATUS_LABELS[s], project.live_count(s)) for s in STATUSES]
            if project.issue_counts is not None
            else None,
            "total": project.live_count(),
            "item_url": item_browser_url(project),
        }
        for project in project_list(tenant=tenant)
    ]
    context = {"tenant": tenant, "tenant_admin_url": tenant_admin_url(tenant), "rows": rows}
    return _page(request, "tracker_tenant.html", tenant.name, context)


@require_GET
def project_issues_view(request: HttpRequest, slug: str, project_key: str) -> HttpResponse:
    """A project's live issues, newest first, 25 a page (signed cursors), filtered by status."""
    tenant = staff_tenant_access(slug=slug)
    project = project_access(tenant=tenant, key=project_key)
    filters = StatusFilterForm(request.GET)
    if not filters.is_valid():
        raise BadRequest("Unknown status filter.")
    status = filters.cleaned_data["status"] or None
    page = issue_list_page(project=project, status=status, cursor=request.GET.get("cursor"))
    context = {
        "tenant": tenant,
        "project": project,
        "project_item_url": item_browser_url(project),
        "next_number": issue_number_next(project=project),
        "filters": filters,
        "status": status or "",
        "status_label": STATUS_LABELS.get(status or "", ""),
        "rows": [{"issue": issue, "item_url": item_browser_url(issue)} for issue in page.issues],
        "next_url": _query(status=status, cursor=page.next_cursor) if page.next_cursor else "",
        "previous_url": _query(status=status, cursor=page.previous_cursor) if page.previous_cursor else "",
    }
    return _page(request, "tracker_project.html", f"{project.project_key} · {project.name}", context)


@require_GET
def leaderboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The tenant's top 10 or 50 from the write-sharded ``top`` index (N Queries merged, or Redis)."""
    tenant = staff_tenant_access(slug=slug)
    form = TopForm(request.GET)
    if not form.is_valid():
        raise BadRequest(BAD_TOP)
    k = form.cleaned_data["top"] or DEFAULT_TOP
    context = {
        "tenant": tenant,
        "top": leaderboard_top(tenant=tenant.slug, k=k),
        "k": k,
        "other_k": next(other for other in TOP_CHOICES if other != k),
    }
    return _page(request, "tracker_leaderboard.html", f"Leaderboard of {tenant.name}", context)


# ----------------------------------------------------------------------------- orders


def _orders(data: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    """The orders the filters ask for, what they are called, and the pager's cursors (one tenant only)."""
    tenant, preset = data["tenant"], data["range"] or LATEST
    start, end = data["from"], data["to"]
    custom = bool(start or end)
    dates = f"{start or '…'} to {end or '…'} (UTC)"
    if tenant is not None:
        window = OrderWindow(start=start, end=end) if custom else OrderWindow(preset="" if preset == LATEST else preset)
        page = order_list_page(tenant=tenant, window=window, cursor=cursor)  # BadCursor: a 400 page
        label = dates if custom else "All time" if preset == LATEST else STAFF_RANGE_LABELS[preset]
        return {
            "orders": page.orders,
            "description": f"Orders of {tenant.name}: {label}, newest first, 25 a page",
            "next_cursor": page.next_cursor,
            "previous_cursor": page.previous_cursor,
        }
    orders: list[OrderItem]
    if custom:
        since, until = OrderWindow(start=start, end=end).bounds(utcnow())
        orders, label = staff_orders_in_range(since=since, until=until), dates
    elif preset == LATEST:
        orders, label = staff_orders_latest(), STAFF_RANGE_LABELS[LATEST]
    elif preset == OLDEST:
        orders, label = staff_orders_oldest(), STAFF_RANGE_LABELS[OLDEST]
    else:
        orders, label = staff_orders_in_range(preset=preset), STAFF_RANGE_LABELS[preset]
    shown = f"; the first {STAFF_LIMIT} of {len(orders)} shown" if len(orders) > STAFF_LIMIT else ""
    return {"orders": orders[:STAFF_LIMIT], "description": f"Orders of all tenants: {label}{shown}"}


@require_GET
def orders_view(request: HttpRequest) -> HttpResponse:
    """Every tenant's orders (latest / oldest 100, a range) or one tenant's (paged); find one by number."""
    filters = StaffOrdersForm(request.GET)
    finder = OrderFindForm(request.GET) if "number" in request.GET else OrderFindForm()
    found = None
    if finder.is_bound and finder.is_valid():
        number = finder.cleaned_data["number"]
        found = staff_order_find(number=number)
        if found is None:
            messages.warning(request, f"There is no order #{number} (of any tenant).")
    listing: dict[str, Any] = {"orders": [], "description": ""}
    if filters.is_valid():
        listing = _orders(filters.cleaned_data, request.GET.get("cursor"))
    keep = {name: request.GET.get(name, "") for name in ("tenant", "range", "from", "to")}
    context = {
        "filters": filters,
        "finder": finder,
        "found": _found(request, found) if found is not None else None,
        "rows": [{"order": order, "item_url": item_browser_url(order)} for order in listing["orders"]],
        "description": listing["description"],
        "next_url": _query(**keep, cursor=listing["next_cursor"]) if listing.get("next_cursor") else "",
        "previous_url": _query(**keep, cursor=listing["previous_cursor"]) if listing.get("previous_cursor") else "",
    }
    invalid = not filters.is_valid() or (finder.is_bound and not finder.is_valid())
    return _page(request, "tracker_orders.html", "Orders", context, status=400 if invalid else 200)


def _found(request: HttpRequest, order: OrderItem) -> dict[str, Any]:
    """The found order, with the status buttons staff who may change data see (the seller's steps)."""
    may_change = staff_can_change(request.user)
    steps = [(s, ORDER_STATUS_LABELS[s]) for s in order.next_statuses] if may_change else []
    return {"order": order, "item_url": item_browser_url(order), "steps": steps}


@require_POST
def order_status_view(request: HttpRequest, number: int) -> HttpResponse:
    """POST (permitted staff): mark the order paid or fulfilled, or cancel it; back to it on the orders page.

    Staff who only read get a 403; a move its status does not allow (or a race lost) is the 409 page.
    """
    if not staff_can_change(request.user):
        raise PermissionDenied(order_services.STAFF_ONLY)
    form = OrderTransitionForm(request.POST)
    if not form.is_valid():
        raise BadRequest("Unknown order status.")
    order = staff_order_find(number=number)
    if order is None:
        raise Http404(f"There is no order #{number}.")
    to = form.cleaned_data["to"]
    order_services.staff_order_transition(user=request.user, order=order, to=to)
    messages.success(request, f"Order #{number} ({order.customer}) is now {ORDER_STATUS_LABELS[to]}.")
    return redirect(f"{reverse('admin:ddb_tracker_orders')}?{urlencode({'number': number})}")


# ----------------------------------------------------------------------------- attachments in flight


@require_http_methods(["GET", "POST"])
def attachments_view(request: HttpRequest) -> HttpResponse:
    """GET: the attachments in Attaching or Detaching, with their age. POST (audit.run_destructive_jobs): reconcile."""
    may_change = staff_can_run_destructive_jobs(request.user)
    if request.method == "POST":
        if not may_change:
            raise PermissionDenied(NO_PERMISSION)
        task_id = reconcile_attachments_start(by=request.user)  # type: ignore[arg-type]  # audited
        messages.success(request, f"Reconcile attachments: queued as {task_id}.")
        return redirect("admin:ddb_job", task_id=task_id)
    slug = request.GET.get("tenant") or None
    tenant = staff_tenant_access(slug=slug) if slug else None
    rows = [
        {"row": row, "age": duration(row.age), "item_url": item_browser_url(row.item)}
        for row in staff_attachments_in_flight(tenant=tenant.slug if tenant else None)
    ]
    context = {
        "tenant": tenant,
        "rows": rows,
        "can_change": may_change,
        "limit": STAFF_IN_FLIGHT_LIMIT,
        "stuck_after": duration(timedelta(seconds=settings.ATTACHMENT_STUCK_SECONDS)),
    }
    return _page(request, "tracker_attachments.html", "Attachments in flight", context)
