"""The team's orders by API: the list by time, one by number, and placing one (exactly once per Idempotency-Key).

The same selectors and service as the order pages: the list is one Query of the team's orders in a time range,
newest first, with the page's signed cursors; one order is found by its number (the ``by_number`` index, or
Redis); placing one is ``services.orders.order_place_claim`` (members and owners). Moving an order along its
workflow (cancel, paid, fulfilled) stays on the pages: a cancel asks first, the rest is Tracker staff's.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal, Self

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router, Schema
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ddbmodels.orders import PRODUCTS, GapLeft
from tracker.api.access import require_scope, require_token_scope, team_access
from tracker.api.etag import etag_of, not_modified, not_modified_response
from tracker.api.idempotency import key_header, run_once
from tracker.api.openapi import cost
from tracker.api.paging import set_links
from tracker.api.problems import problem
from tracker.api.schemas import Page, as_sent
from tracker.error_pages import RETRY_AFTER_SECONDS
from tracker.selectors.orders import OrderWindow, order_access, order_list_page
from tracker.services import orders as order_services
from tracker.services import replays

if TYPE_CHECKING:
    from ddbmodels.orders import OrderItem
    from ddbmodels.patterns.sequences import Claimed

router = Router(tags=["orders"])

# ddbmodels.orders' PRODUCTS, DELIVERY_METHODS, STATUSES, PRESETS and tracker.forms.orders' years, spelt out for
# the schema (tests/tracker/api/test_team_resources_api.py fails if they part).
Product = Literal["seats", "storage", "support_hours"]
Delivery = Literal["standard", "expedited", "next_cycle"]
OrderStatus = Literal["pending", "paid", "fulfilled", "cancelled"]
Preset = Literal["24h", "7d", "1m", "3m"]
FIRST_YEAR, LAST_YEAR = 2000, 2999
NUMBER_MAX = 10**15 - 1  # ddbmodels.orders.MAX_ORDER_NUMBER
Number = Path(..., ge=1, le=NUMBER_MAX, description="The order's number.")


class OrderOut(Schema):
    """One order of add-ons the team placed."""

    number: int = Field(description="Its number (global: numbers are shared by every team).")
    product: Product
    quantity: int
    delivery: Delivery
    status: OrderStatus = Field(description="pending → paid → fulfilled; cancelled. Staff move it past pending.")
    placed_at: datetime
    placed_by: str = Field(description="Who placed it (username).")
    updated_at: datetime
    updated_by: str | None = Field(description="Who last moved its status; null before the first move.")


class OrderQuery(BaseModel):
    """The list's time range: a preset, or dates (UTC, inclusive), or neither (all time)."""

    model_config = ConfigDict(populate_by_name=True)

    range: Preset | None = Field(None, description="The last 24 hours, 7 days, month or 3 months.")
    since: date | None = Field(None, alias="from", description="The first day (UTC), inclusive.")
    until: date | None = Field(None, alias="to", description="The last day (UTC), inclusive.")
    cursor: str | None = Field(None, description="A cursor from a page of this list (`next_cursor`, …).")

    @model_validator(mode="after")
    def _one_range(self) -> Self:
        for name, day in (("from", self.since), ("to", self.until)):
            if day is not None and not FIRST_YEAR <= day.year <= LAST_YEAR:
                raise ValueError(f"{name}: choose a date between {FIRST_YEAR} and {LAST_YEAR}.")
        if self.since and self.until and self.until < self.since:
            raise ValueError("to: the end date is before the start date.")
        if self.range and (self.since or self.until):
            raise ValueError("Choose a preset range or dates, not both.")
        return self

    def window(self) -> OrderWindow:
        return OrderWindow(preset=self.range or "", start=self.since, end=self.until)


class OrderIn(BaseModel):
    """An order to place."""

    model_config = ConfigDict(extra="forbid")

    product: Product
    quantity: int = Field(ge=1, description="At most 500 seats, 10,000 GB of storage or 200 support hours an order.")
    delivery: Delivery = "standard"

    @model_validator(mode="after")
    def _within_limit(self) -> Self:
        limit = PRODUCTS[self.product].max_quantity
        if self.quantity > limit:
            raise ValueError(f"quantity: at most {limit:,} {self.product.replace('_', ' ')} per order.")
        return self


def order_out(order: OrderItem) -> dict[str, Any]:
    """One order, JSON-ready as every answer sends it (``as_sent``: times to the millisecond); reads nothing. The one
    renderer of every answer holding an order."""
    return as_sent(
        OrderOut(
            number=int(order.number),
            product=order.product,  # type: ignore[arg-type]  # one of PRODUCTS, as stored
            quantity=int(order.quantity),
            delivery=order.delivery,  # type: ignore[arg-type]  # one of DELIVERY_METHODS, as stored
            status=order.status,  # type: ignore[arg-type]  # one of STATUSES, as stored
            placed_at=order.placed_at,
            placed_by=order.placed_by,
            updated_at=order.updated_at,
            updated_by=order.updated_by or None,
        )
    )


@router.get(
    "/teams/{team}/orders",
    response=Page[OrderOut],
    summary="The team's orders",
    openapi_extra=cost(
        requests=1,
        rcu="0.5 per 4 KB of the page (25 orders of ~250 B: 1)",
        note="One Query of the team's orders in the range, newest first, Limit 26.",
    ),
)
def orders_list(request: HttpRequest, team: str, response: HttpResponse, query: Query[OrderQuery]) -> dict[str, Any]:
    """A page of the team's orders in a time range, newest first (25 a page), as the orders page lists them."""
    membership = team_access(request, team)
    page = order_list_page(tenant=membership.tenant, window=query.window(), cursor=query.cursor)
    set_links(request, response, next_cursor=page.next_cursor, prev_cursor=page.previous_cursor)
    return {
        "items": [order_out(order) for order in page.orders],
        "next_cursor": page.next_cursor,
        "prev_cursor": page.previous_cursor,
    }


@router.get(
    "/teams/{team}/orders/{number}",
    response={200: OrderOut, 304: None},
    summary="One order",
    openapi_extra=cost(
        requests="1 (2 when its number is not cached)",
        rcu="0.5 (GetItem) [+ 0.5 the by_number index Query]",
        note="The number → key look-up is cached in Redis for a week; the order itself is read each time, also for "
        "a 304 (If-None-Match): it saves bandwidth and the rate limit.",
    ),
)
def order_get(request: HttpRequest, team: str, response: HttpResponse, number: int = Number) -> Any:
    """The team's order with this number (another team's number is a 404), with its `ETag` (its status and when it
    last moved: an order is never edited)."""
    membership = team_access(request, team)
    order = order_access(tenant=membership.tenant, number=number)
    tag = etag_of(order)
    if not_modified(request, tag):
        return not_modified_response(tag)
    response["ETag"] = tag
    return order_out(order)


def first_order(order: OrderItem) -> dict[str, Any]:
    """The answer of the POST that placed ``order``, and of every replay of it byte for byte: the order as it was
    placed (pending, last changed when placed), from its parts that never change, whatever happened to it since."""
    placed = order_out(order)
    return {**placed, "status": "pending", "updated_at": placed["placed_at"], "updated_by": None}


@router.post(
    "/teams/{team}/orders",
    response={201: OrderOut},
    summary="Place an order",
    openapi_extra=cost(
        requests="the key's record first, then atomic numbering (the default): 3, the counter and one transaction; "
        "gapless: 3 + 1 a lost race; a replay 2 (the key's record and the order)",
        rcu="1 (the key's record, consistent) + atomic: 0; gapless: 1 (the counter, consistent); a replay 2",
        wcu="atomic: 1 (the counter) + 7 (order, its index entries and key record in one transaction; DynamoDB "
        "Local charges 10: 11 measured); gapless: 8; a replay 0 (no number drawn)",
        note="Exactly once per Idempotency-Key: the key's record is read first (a replay answers the first answer, "
        "whatever changed since), and written in the order's own transaction.",
    ),
)
def order_create(
    request: HttpRequest, team: str, payload: OrderIn, idempotency_key: str | None = key_header()
) -> HttpResponse:
    """Place an order for the team (members and owners: a `write` token). The answer is the order (201) and its URL
    (`Location`); the same `Idempotency-Key` again answers the same, placing nothing. A 503 means nothing was
    ordered: send it again (the same key is safe)."""
    membership = team_access(request, team)
    require_token_scope(request, "write")

    def replay(scoped: str, fingerprint: str) -> Claimed[OrderItem] | None:
        return replays.order_replay(membership=membership, idempotency_key=scoped, fingerprint=fingerprint)

    def create(scoped: str, fingerprint: str) -> Claimed[OrderItem]:
        require_scope(request, "write")  # the role as it is now: a new order's check, not a replay's
        return order_services.order_place_claim(
            membership=membership,
            product=payload.product,
            quantity=payload.quantity,
            delivery=payload.delivery,
            idempotency_key=scoped,
            fingerprint=fingerprint,
        )

    try:
        answer = run_once(
            request,
            membership=membership,
            kind="order",
            replay=replay,
            create=create,
            first_answer=lambda claimed: first_order(claimed.item),
        )
    except GapLeft:  # atomic numbering lost its number to a failed write: no order, and no record of the key
        return problem(
            503,
            "unavailable",
            "The order could not be placed right now and nothing was ordered: send it again.",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    if answer.status_code == 201:
        number = json.loads(answer.content)["number"]
        answer["Location"] = request.build_absolute_uri(f"{request.path.rstrip('/')}/{number}")
    return answer
