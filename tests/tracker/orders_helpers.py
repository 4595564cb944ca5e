"""Helpers for the order page tests: orders on demand, snapshots that prove nothing was written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.http import HttpResponse

from ddbmodels import orders
from ddbmodels.core import capacity
from ddbmodels.counters import ORDERS_COUNTER, counter_value
from ddbmodels.orders import OrderItem
from tests.tracker.conftest import World
from tests.tracker.helpers import text


def new_order(world: World, *, when: datetime | None = None, **fields: Any) -> OrderItem:
    """Place an order for the world's tenant straight through ddbmodels (fast; no request)."""
    fields = {"product": "seats", "quantity": 3, "delivery": "standard", "placed_by": world.member.username, **fields}
    return orders.order_place(customer=world.slug, when=when, **fields).item


def stored_orders(world: World) -> list[dict[str, Any]]:
    """Every order of the world's tenant as DynamoDB has it now (consistent read), oldest first."""
    return [order.serialize() for order in OrderItem.query(world.slug, consistent_read=True)]


def load_order(world: World, number: int) -> OrderItem:
    order = orders.order_find(number=number, customer=world.slug, consistent=True)
    assert order is not None, f"order {number} of {world.slug} is missing"
    return order


def orders_url(world: World, suffix: str = "") -> str:
    return f"/t/{world.slug}/orders/{suffix}"


@contextmanager
def orders_unchanged(*worlds: World) -> Iterator[capacity.CapacityMeter]:
    """Assert that the block writes nothing: no write request at all, the counter and every order as they were."""
    before = [stored_orders(w) for w in worlds]
    counter_before = counter_value(ORDERS_COUNTER)
    with capacity.measure() as meter:
        yield meter
    writes = {op: n for op, n in meter.by_operation.items() if op in capacity.WRITE_OPERATIONS}
    assert writes == {}, f"writes attempted: {writes}"
    assert [stored_orders(w) for w in worlds] == before
    assert counter_value(ORDERS_COUNTER) == counter_before


def listed_numbers(response: HttpResponse) -> list[int]:
    """Order numbers linked from a list page, in display order."""
    return [int(n) for n in re.findall(r'/orders/(\d+)/">#\d+</a>', text(response))]
