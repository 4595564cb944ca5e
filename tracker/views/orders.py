"""Order pages: the tenant's orders by time, place an order, an order by number, move its status."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ddbmodels.core.errors import SequenceContention
from ddbmodels.orders import GapLeft, OrderItem
from tracker.exceptions import BadRequest
from tracker.forms.orders import (
    ORDER_STATUS_LABELS,
    RANGE_LABELS,
    OrderForm,
    OrderRangeForm,
    OrderTransitionForm,
    preset_choices,
)
from tracker.models import Membership
from tracker.selectors.orders import OrderWindow, order_access, order_list_page
from tracker.services import orders as order_services
from tracker.views.base import tenant_view

NOT_PLACED = "Your order could not be placed right now and nothing was ordered. Please submit it again."


@tenant_view
def order_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    filters = OrderRangeForm(request.GET)
    if not filters.is_valid():
        # The page again with the form and what is wrong with it (400, nothing read from DynamoDB).
        context = {"membership": membership, "filters": filters, "presets": preset_choices(), "custom": True}
        return render(request, "tracker/orders/list.html", {**context, "range_label": "Dates to fix"}, status=400)
    data = filters.cleaned_data
    window = OrderWindow(preset=data["range"] or "", start=data["from"], end=data["to"])
    page = order_list_page(tenant=membership.tenant, window=window, cursor=request.GET.get("cursor"))
    custom = bool(window.start or window.end)
    params: dict[str, object] = {"from": window.start, "to": window.end} if custom else {"range": window.preset}
    query = urlencode({name: value for name, value in params.items() if value})  # kept by the pager links
    return render(
        request,
        "tracker/orders/list.html",
        {
            "membership": membership,
            "page": page,
            "filters": filters,
            "presets": preset_choices(),
            "window": window,
            "custom": custom,
            "range_label": "Custom dates" if custom else RANGE_LABELS[window.preset],
            "query": query,
        },
    )


@tenant_view
def order_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot place orders.")
    form = OrderForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            claimed = order_services.order_place_claim(
                membership=membership,
                product=data["product"],
                quantity=data["quantity"],
                delivery=data["delivery"],
                idempotency_key=data["idempotency_key"],
            )
        except (GapLeft, SequenceContention):
            # Atomic mode lost its number to a failed write, or gapless mode lost every race:
            # either way no order exists, and submitting again is safe.
            form.add_error(None, NOT_PLACED)
            return render(request, "tracker/orders/form.html", {"form": form, "membership": membership}, status=503)
        order = claimed.item
        if claimed.replayed:  # a double click, a retry, back and submit again: the first result
            messages.info(request, f"This form was already submitted: it placed order #{int(order.number)}.")
        else:
            messages.success(request, f"Placed order #{int(order.number)}.")
        return redirect("order_detail", tenant=membership.tenant.slug, number=int(order.number))
    return render(request, "tracker/orders/form.html", {"form": form, "membership": membership})


def _detail_context(membership: Membership, order: OrderItem) -> dict[str, object]:
    return {
        "membership": membership,
        "order": order,
        "next_statuses": [(s, ORDER_STATUS_LABELS[s]) for s in order.next_statuses],
        # What the team's owners may do here (cancel a pending order); paid and fulfilled are staff's.
        "team_statuses": [(s, ORDER_STATUS_LABELS[s]) for s in order_services.team_next_statuses(order)],
    }


@tenant_view
def order_detail(request: HttpRequest, membership: Membership, number: int) -> HttpResponse:
    order = order_access(tenant=membership.tenant, number=number)
    return render(request, "tracker/orders/detail.html", _detail_context(membership, order))


@tenant_view
@require_POST
def order_transition(request: HttpRequest, membership: Membership, number: int) -> HttpResponse:
    order = order_access(tenant=membership.tenant, number=number, consistent=True)
    if not membership.allows("owner"):
        raise PermissionDenied("Only owners cancel orders.")
    form = OrderTransitionForm(request.POST)
    if not form.is_valid():
        raise BadRequest("Unknown order status.")
    to = form.cleaned_data["to"]
    allowed = order_services.team_next_statuses(order)
    if to == "cancelled" and "cancelled" in allowed and not form.cleaned_data["confirm"]:
        # Cancelling cannot be undone: ask first, on a page of its own (no script needed).
        return render(request, "tracker/orders/cancel.html", {"membership": membership, "order": order})
    # A seller's step (paid, fulfilled, cancelling a paid order) is a 403; a move the workflow forbids,
    # or one that lost a race, a 409 page in those words (tracker.error_pages). Nothing changes either way.
    order_services.order_transition(membership=membership, order=order, to=to)
    messages.success(request, f"Order #{number} is now {ORDER_STATUS_LABELS[to]}.")
    return redirect("order_detail", tenant=membership.tenant.slug, number=number)
