"""Reading orders: by number (the ``by_number`` index), one customer's by time (the table), everybody's
by time (the sharded ``by_time`` index).

Time ranges are half-open, [since, until), on the sort key's millisecond UTC time: a key
``<time>#<number>`` is ≥ ``<since>`` exactly when its time is ≥ since, and ≤ ``<until>`` exactly
when its time is < until (the ``#…`` suffix sorts after the bare time), so an inclusive BETWEEN
of the two bare times is the half-open range.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pynamodb.attributes import UnicodeAttribute
from pynamodb.exceptions import DoesNotExist
from pynamodb.expressions.condition import Condition

from ddbmodels.core import capacity
from ddbmodels.core.keys import time_key
from ddbmodels.orders.model import (
    DEFAULT_SHARDS,
    MAX_ORDER_NUMBER,
    OrderItem,
    OrdersByNumberIndex,
    OrdersByTimeIndex,
    shard_keys,
)
from ddbmodels.patterns.sharded_index import query_shards


@capacity.access_pattern("orders.get")
def order_get(*, customer: str, placed: str, consistent: bool = False) -> OrderItem | None:
    """GetItem c, t — 0.5 RCU (1 RCU consistent) per 4 KB. None when missing."""
    try:
        return OrderItem.get(customer, placed, consistent_read=consistent)
    except DoesNotExist:
        return None


@capacity.access_pattern("orders.find")
def order_key(*, number: int, customer: str | None = None) -> tuple[str, str] | None:
    """Query by_number n=number (AND c=customer), Limit 1 — 0.5 RCU. The order's (c, t) key, or None.

    With ``customer`` another customer's order is not found by the key condition itself; staff
    pass no customer. The index is eventually consistent: an order placed a moment ago may not
    be in it yet (callers that just placed one know its key already).
    """
    if not 0 < number <= MAX_ORDER_NUMBER:
        return None
    condition = OrdersByNumberIndex.customer == customer if customer is not None else None
    for entry in OrderItem.by_number.query(number, range_key_condition=condition, limit=1):
        return entry.customer, entry.placed
    return None


@capacity.access_pattern("orders.find")
def order_find(*, number: int, customer: str | None = None, consistent: bool = False) -> OrderItem | None:
    """order_key (0.5 RCU) + order_get (0.5 RCU, 1 consistent): the order with this number, or None."""
    key = order_key(number=number, customer=customer)
    if key is None:
        return None
    return order_get(customer=key[0], placed=key[1], consistent=consistent)


OLDER = "older"
NEWER = "newer"


@dataclass(frozen=True)
class OrderPage:
    """Orders newest first, and the sort keys to continue from (None when there is nothing there)."""

    items: list[OrderItem]
    older_than: str | None
    newer_than: str | None


def _between(attribute: UnicodeAttribute, lower: str | None, upper: str | None) -> Condition | None:
    """Inclusive bounds as one sort-key condition; ValueError when the range is empty."""
    if lower is not None and upper is not None:
        if lower > upper:
            raise ValueError("empty range")
        return attribute.between(lower, upper)
    if lower is not None:
        return attribute >= lower
    if upper is not None:
        return attribute <= upper
    return None


def _bounds(since: datetime | None, until: datetime | None) -> tuple[str | None, str | None]:
    return (time_key(since) if since else None, time_key(until) if until else None)


@capacity.access_pattern("orders.customer_page")
def customer_orders_page(
    *,
    customer: str,
    since: datetime | None = None,
    until: datetime | None = None,
    size: int = 25,
    after: str | None = None,
    direction: str = OLDER,
) -> OrderPage:
    """Query c=customer, t in [since, until) past the cursor, Limit size + 2 — 0.5 RCU per 4 KB read.

    ``after`` is the sort key of the last order shown (older) or the first one (newer); it is
    read again by the inclusive bound and dropped, hence size + 2.
    """
    lower, upper = _bounds(since, until)
    forward = direction == NEWER
    if after is not None:
        if forward:
            lower = max(lower, after) if lower is not None else after
        else:
            upper = min(upper, after) if upper is not None else after
    try:
        condition = _between(OrderItem.placed, lower, upper)
    except ValueError:
        return OrderPage(items=[], older_than=None, newer_than=None)
    results = OrderItem.query(
        customer,
        range_key_condition=condition,
        scan_index_forward=forward,
        limit=size + 2,
        page_size=size + 2,
    )
    items = [order for order in results if order.placed != after]
    more = len(items) > size
    items = items[:size]
    if forward:
        items.reverse()
    if not items:
        return OrderPage(items=[], older_than=None, newer_than=None)
    first, last = items[0].placed, items[-1].placed
    if forward:
        return OrderPage(items=items, older_than=last, newer_than=first if more else None)
    return OrderPage(items=items, older_than=last if more else None, newer_than=first if after is not None else None)


@capacity.access_pattern("orders.range")
def orders_in_range(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    newest_first: bool = True,
    limit: int | None = None,
    shards: int = DEFAULT_SHARDS,
) -> list[OrderItem]:
    """Query by_time once per shard (t in [since, until), ScanIndexForward, Limit), merged — 0.5 RCU per 4 KB per shard.

    Every customer's orders in one time order; at most ``limit`` of them when given.
    """
    lower, upper = _bounds(since, until)
    try:
        condition = _between(OrdersByTimeIndex.placed, lower, upper)
    except ValueError:
        return []
    return query_shards(
        OrderItem.by_time,
        shard_keys(shards),
        sort_key=lambda order: order.placed,
        range_key_condition=condition,
        descending=newest_first,
        limit=limit,
    )


@capacity.access_pattern("orders.latest")
def orders_latest(*, limit: int = 100, shards: int = DEFAULT_SHARDS) -> list[OrderItem]:
    """The newest ``limit`` orders of all customers: N Queries descending, Limit ``limit`` — ≥ 0.5 RCU per shard."""
    return orders_in_range(newest_first=True, limit=limit, shards=shards)


@capacity.access_pattern("orders.oldest")
def orders_oldest(*, limit: int = 100, shards: int = DEFAULT_SHARDS) -> list[OrderItem]:
    """The oldest ``limit`` orders of all customers: N Queries ascending, Limit ``limit`` — ≥ 0.5 RCU per shard."""
    return orders_in_range(newest_first=False, limit=limit, shards=shards)
