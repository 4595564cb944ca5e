"""The demo's add-on orders: spread over the last three months, numbered in the order they were placed,
each in the status its age makes likely (recent ones pending or paid, older ones fulfilled, a few cancelled;
the newest, just placed, pending).

Orders are planned per team while its projects are written (the same random draws as before, so
the issues do not change), then placed oldest first through the ordinary ``orders.order_place``
(one global counter: number 1 is the oldest order) and moved along the workflow with
``orders.order_transition`` (pending → paid → fulfilled, or → cancelled), as people would.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from ddbmodels import orders
from ddbmodels.orders import DELIVERY_METHODS, PRODUCTS

SPREAD = timedelta(days=90)
# the statuses an order of each age is likely to be in, with their weights
LIKELY: list[tuple[timedelta, dict[str, int]]] = [
    (timedelta(days=7), {"pending": 3, "paid": 2}),
    (timedelta(days=21), {"pending": 1, "paid": 3, "fulfilled": 4, "cancelled": 1}),
    (SPREAD * 2, {"paid": 1, "fulfilled": 16, "cancelled": 3}),
]
STEPS = {"pending": [], "paid": ["paid"], "fulfilled": ["paid", "fulfilled"], "cancelled": ["cancelled"]}


@dataclass(frozen=True)
class PlannedOrder:
    customer: str
    product: str
    quantity: int
    delivery: str
    placed_by: str
    when: datetime


def orders_plan(rng: random.Random, *, customer: str, placed_by: str, count: int, now: datetime) -> list[PlannedOrder]:
    """``count`` orders of one team at random times of the last three months (nothing written)."""
    planned = []
    for _ in range(count):
        product = rng.choice(list(PRODUCTS))
        planned.append(
            PlannedOrder(
                customer=customer,
                product=product,
                quantity=rng.randint(1, min(20, PRODUCTS[product].max_quantity)),
                delivery=rng.choice(DELIVERY_METHODS),
                placed_by=placed_by,
                when=now - timedelta(minutes=rng.randint(0, int(SPREAD.total_seconds()) // 60)),
            )
        )
    return planned


def likely_status(rng: random.Random, age: timedelta) -> str:
    """A status an order placed ``age`` ago is likely to be in by now."""
    weights = next(w for limit, w in LIKELY if age < limit)
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def orders_place(planned: list[PlannedOrder], *, rng: random.Random, shards: int, now: datetime) -> Counter[str]:
    """Place the orders oldest first (numbers follow dates) and move each to its likely status; how many of each.

    Each order: ``order_place`` (atomic, 4 WCU) + one ``order_transition`` per step (2 WCU each).
    """
    made: Counter[str] = Counter()
    ordered = sorted(planned, key=lambda p: p.when)
    for p in ordered:
        order = orders.order_place(
            customer=p.customer,
            product=p.product,
            quantity=p.quantity,
            delivery=p.delivery,
            placed_by=p.placed_by,
            shards=shards,
            when=p.when,
        ).item
        status = "pending" if p is ordered[-1] else likely_status(rng, now - p.when)  # the newest: just placed
        for to in STEPS[status]:
            order = orders.order_transition(order, to=to, by=p.placed_by)
        made[status] += 1
    return made
