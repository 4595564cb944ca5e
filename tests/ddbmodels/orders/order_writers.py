"""A writer process for order numbers under contention (run with the "spawn" start method).

It imports nothing from the test session: each of its threads places ``per_thread`` orders
(spread over several customers) with one counter, and reports what it was told (see
``tests.ddbmodels.processes``).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from ddbmodels import orders
from ddbmodels.core import capacity
from ddbmodels.counters import counter_value
from tests.ddbmodels.processes import claim_until_won, write_in_threads


def _writer(
    customers: list[str], counter: str, mode: str, process: int, per_thread: int, thread: int, start: threading.Barrier
) -> dict[str, Any]:
    claims: list[tuple[int, str, str, int, str]] = []
    given_up = 0
    writer = f"p{process}-t{thread}"
    start.wait(timeout=60)
    with capacity.measure() as meter:
        for i in range(per_thread):
            customer = customers[(thread + i) % len(customers)]
            order = {"customer": customer, "product": "seats", "quantity": 1 + i % 5, "delivery": "standard"}
            claimed, gave_up = claim_until_won(
                lambda order=order: orders.order_place(**order, placed_by=writer, mode=mode, counter=counter)
            )
            claims.append((claimed.number, customer, claimed.item.placed, claimed.attempts, writer))
            given_up += gave_up
    figures = meter.as_dict()
    return {"claims": claims, "given_up": given_up} | {k: figures[k] for k in ("conditional_failures", "rcu", "wcu")}


def place_orders(
    results: Any, barrier: Any, *, customers: list[str], counter: str, mode: str, per_thread: int, **options: Any
) -> None:
    """Process entry point: every thread places ``per_thread`` orders numbered by ``counter`` in ``mode``."""
    write_in_threads(
        results,
        barrier,
        warm_up=lambda: counter_value(counter),
        writer=functools.partial(_writer, customers, counter, mode, options["process"], per_thread),
        **options,
    )
