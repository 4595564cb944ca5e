"""Global order numbers: 16 writers in 2 processes, both modes; the atomic gap; the gap-free transaction."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

import ddbmodels
from ddbmodels import orders
from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists
from ddbmodels.counters import CounterItem, counter_value
from ddbmodels.orders.model import OrderItem, order_sort_key, shard_key
from ddbmodels.patterns import counters
from ddbmodels.patterns.counters import GapLeft
from ddbmodels.patterns.sequences import Claimed
from tests.ddbmodels.conftest import unique_tenant
from tests.ddbmodels.orders import order_writers
from tests.ddbmodels.orders.helpers import unique_counter
from tests.ddbmodels.processes import interleaving, run_in_processes
from tests.dynamodb_faults import Refusal

PROCESSES = 2
THREADS = 8
PER_THREAD = 50
N = PROCESSES * THREADS * PER_THREAD  # 800 orders from 16 writers

log = logging.getLogger(__name__)


def place(customer: str, counter: str, mode: str = "atomic", **fields: Any) -> Claimed[OrderItem]:
    fields = {"product": "seats", "quantity": 1, "delivery": "standard", "placed_by": "tester", **fields}
    return orders.order_place(customer=customer, mode=mode, counter=counter, **fields)


def stored_numbers(customers: list[str]) -> list[int]:
    """Every order number the table holds for these customers (consistent reads), sorted."""
    return sorted(int(o.number) for c in customers for o in OrderItem.query(c, consistent_read=True))


def run_writers(settings: ddbmodels.DynamoSettings, customers: list[str], counter: str, mode: str) -> list[dict]:
    options = {"endpoint_url": settings.endpoint_url, "table_prefix": settings.table_prefix, "customers": customers}
    options |= {"counter": counter, "mode": mode, "threads": THREADS, "per_thread": PER_THREAD}
    return run_in_processes(order_writers.place_orders, PROCESSES, **options)


@pytest.mark.ddblocal
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["atomic", "gapless"])
def test_sixteen_writers_in_two_processes_get_eight_hundred_distinct_numbers(
    ddblocal: ddbmodels.DynamoSettings, mode: str, record_property: Callable[[str, object], None]
) -> None:
    customers = [unique_tenant() for _ in range(4)]  # numbers are global: across tenants
    counter = unique_counter()

    reports = run_writers(ddblocal, customers, counter, mode)

    claims = [claim for report in reports for claim in report["claims"]]
    numbers = [number for number, *_ in claims]
    assert len(claims) == N
    assert [n for n, times in Counter(numbers).items() if times > 1] == []
    # Nothing failed, so even the atomic mode used every number; the gapless mode must.
    assert sorted(numbers) == list(range(1, N + 1))
    assert stored_numbers(customers) == list(range(1, N + 1))
    assert counter_value(counter) == N
    # Each writer was told the number its stored order carries.
    for number, customer, placed, *_ in claims[:: N // 40]:
        assert int(orders.order_get(customer=customer, placed=placed, consistent=True).number) == number

    # The writers ran into each other: the two processes' numbers interleave, not one block each…
    by_number = sorted((number, writer.split("-")[0]) for number, *_, writer in claims)
    assert interleaving([process for _, process in by_number]) > PROCESSES
    lost = sum(attempts - 1 for _, _, _, attempts, _ in claims)
    given_up = sum(report["given_up"] for report in reports)
    failures = sum(report["conditional_failures"] for report in reports)
    if mode == "atomic":
        assert (lost, given_up, failures) == (0, 0, 0)  # …yet ADD never races
    else:
        assert lost > 0  # …and the gapless writers lost races to each other, each a refused transaction
        assert failures >= lost + given_up * counters.BACKOFF.attempts
    figures = {"mode": mode, "seconds": round(max(r["seconds"] for r in reports), 1), "lost_races": lost}
    figures |= {"given_up": given_up, "rcu": sum(r["rcu"] for r in reports), "wcu": sum(r["wcu"] for r in reports)}
    for name, value in figures.items():
        record_property(name, value)
    log.info("order concurrency figures: %s", figures)


@pytest.mark.ddblocal
def test_atomic_mode_leaves_a_gap_when_the_put_after_the_counter_fails(
    dynamodb_refuses: Callable[..., Refusal],
) -> None:
    customer, counter = unique_tenant(), unique_counter()
    assert place(customer, counter).number == 1

    throttled = dynamodb_refuses("PutItem", table=OrderItem.Meta.table_name, code="InternalServerError", times=1)
    with pytest.raises(GapLeft) as raised:
        place(customer, counter)
    assert len(throttled.refused) == 1

    assert raised.value.context["number"] == 2
    assert place(customer, counter).number == 3
    # The documented trade-off: number 2 was spent by the counter and no order carries it.
    assert stored_numbers([customer]) == [1, 3]
    assert counter_value(counter) == 3


@pytest.mark.ddblocal
def test_gapless_mode_writes_neither_counter_nor_order_when_the_transaction_fails() -> None:
    customer, counter = unique_tenant(), unique_counter()
    assert place(customer, counter, "gapless").number == 1
    when = datetime(2030, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
    # Something already holds the key the next order would take, so its Put is refused…
    OrderItem(
        customer=customer,
        placed=order_sort_key(when, 2),
        number=2,
        time_shard=shard_key(2),
        product="seats",
        quantity=1,
        delivery="standard",
        placed_by="squatter",
        updated_at=when,
    ).save()

    with pytest.raises(AlreadyExists):
        place(customer, counter, "gapless", when=when)

    # …and the counter's Update in the same transaction did not happen either: no gap.
    assert counter_value(counter) == 1
    assert place(customer, counter, "gapless").number == 2


@pytest.mark.ddblocal
def test_gapless_mode_rereads_and_retries_after_losing_the_race(monkeypatch: pytest.MonkeyPatch) -> None:
    customer, counter = unique_tenant(), unique_counter()
    place(customer, counter, "gapless")
    real_value = counters.counter_value
    reads: list[int] = []

    def read_then_lose(model: type[CounterItem], name: str, *, consistent: bool = True) -> int:
        seen = real_value(model, name, consistent=consistent)
        reads.append(seen)
        if len(reads) == 1:
            counters.counter_next(model, name)  # another writer takes number 2 between our read and our commit
        return seen

    monkeypatch.setattr(counters, "counter_value", read_then_lose)
    with capacity.measure() as meter:
        claimed = place(customer, counter, "gapless")

    assert reads == [1, 2]
    assert (claimed.number, claimed.attempts) == (3, 2)
    assert meter.conditional_failures == 1
    # One consistent GetItem per attempt and nothing else: the lost race cost one read of the counter
    # (not a second GetItem of the order, which cannot be ours when only the counter's check failed).
    # Requests: 2 GetItems + the other writer's UpdateItem + 2 transactions.
    assert (meter.rcu, meter.requests) == (2.0, 5)


@pytest.mark.ddblocal
@pytest.mark.parametrize(
    ("mode", "rcu", "wcu", "requests"),
    [
        # UpdateItem ADD (1) + PutItem (1) + by_time (1) + by_number (1)
        pytest.param("atomic", 0.0, 4.0, 2, id="atomic"),
        # consistent GetItem (1 RCU) + a transaction: 2 × (counter + order + by_time + by_number)
        pytest.param("gapless", 1.0, 8.0, 2, id="gapless"),
    ],
)
def test_placing_an_order_costs_what_the_docstring_says(mode: str, rcu: float, wcu: float, requests: int) -> None:
    customer, counter = unique_tenant(), unique_counter()
    place(customer, counter, mode)  # the counter exists now, as it does in production
    with capacity.measure() as meter:
        place(customer, counter, mode)
    assert (meter.rcu, meter.wcu, meter.requests) == (rcu, wcu, requests)
