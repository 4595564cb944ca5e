"""Order operations: validation, look-up by number within a tenant, the status workflow, keys and ranges."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from ddbmodels import orders
from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition
from ddbmodels.counters import counter_value
from ddbmodels.orders.model import OrderItem, months_before, order_sort_key, preset_since, shard_key
from tests.ddbmodels.conftest import unique_tenant
from tests.ddbmodels.orders.helpers import unique_counter

# DynamoDB Local: its tables exist for the whole session, where moto would create them per test.
pytestmark = pytest.mark.ddblocal

VALID: dict[str, Any] = {"product": "seats", "quantity": 5, "delivery": "standard", "placed_by": "bob"}


@pytest.fixture
def counter() -> str:
    return unique_counter()


@pytest.fixture
def acme() -> str:
    return unique_tenant()


def place(customer: str, counter: str, **fields: Any) -> OrderItem:
    return orders.order_place(customer=customer, counter=counter, **{**VALID, **fields}).item


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        pytest.param("product", "rockets", "unknown product", id="unknown-product"),
        pytest.param("quantity", 0, "must be 1 to 500", id="zero"),
        pytest.param("quantity", -3, "must be 1 to 500", id="negative"),
        pytest.param("quantity", 501, "must be 1 to 500", id="over-the-product-maximum"),
        pytest.param("quantity", 2.5, "must be an integer", id="fraction"),
        pytest.param("quantity", True, "must be an integer", id="boolean"),
        pytest.param("delivery", "pigeon", "unknown delivery method", id="unknown-delivery"),
        pytest.param("customer", "Not A Slug", "invalid customer", id="bad-customer"),
        pytest.param("mode", "optimistic", "numbering mode", id="unknown-mode"),
    ],
)
def test_a_bad_order_is_refused_before_any_number_is_taken(
    acme: str, counter: str, field: str, value: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        orders.order_place(**{"customer": acme, "counter": counter, **VALID, field: value})
    assert counter_value(counter) == 0
    assert list(OrderItem.query(acme, consistent_read=True)) == []
    assert place(acme, counter).number == 1


def test_an_order_is_found_by_number_only_within_its_own_tenant(acme: str) -> None:
    globex = unique_tenant()
    counter = unique_counter(start_high=True)  # numbers no other counter of the test table hands out
    mine = place(acme, counter)
    theirs = place(globex, counter)
    assert orders.order_find(number=int(mine.number), customer=acme).placed == mine.placed
    assert orders.order_find(number=int(theirs.number), customer=acme) is None
    assert orders.order_key(number=int(theirs.number), customer=globex) == (globex, theirs.placed)
    # Staff look up any order by number alone.
    assert orders.order_find(number=int(theirs.number)).customer == globex
    for number in (0, -1, 10**15, int(theirs.number) + 1000):
        assert orders.order_find(number=number, customer=acme) is None


def test_an_order_moves_pending_paid_fulfilled_and_records_who_moved_it(acme: str, counter: str) -> None:
    order = place(acme, counter)
    orders.order_transition(order, to="paid", by="alice")
    orders.order_transition(order, to="fulfilled", by="alice")
    stored = orders.order_get(customer=acme, placed=order.placed, consistent=True)
    assert (stored.status, stored.updated_by) == ("fulfilled", "alice")
    assert stored.next_statuses == []


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        pytest.param([], "fulfilled", id="pending-to-fulfilled"),
        pytest.param(["cancelled"], "paid", id="cancelled-to-paid"),
        pytest.param(["paid", "fulfilled"], "cancelled", id="fulfilled-to-cancelled"),
        pytest.param(["paid"], "pending", id="paid-back-to-pending"),
        pytest.param([], "shipped", id="unknown-status"),
    ],
)
def test_a_transition_the_status_does_not_allow_is_refused_and_changes_nothing(
    acme: str, counter: str, path: list[str], refused: str
) -> None:
    order = place(acme, counter)
    for step in path:
        orders.order_transition(order, to=step, by="alice")
    before = orders.order_get(customer=acme, placed=order.placed, consistent=True).serialize()
    with pytest.raises(InvalidTransition):
        orders.order_transition(order, to=refused, by="alice")
    assert orders.order_get(customer=acme, placed=order.placed, consistent=True).serialize() == before


def test_a_transition_from_a_status_that_changed_meanwhile_is_refused(acme: str, counter: str) -> None:
    order = place(acme, counter)
    stale = orders.order_get(customer=acme, placed=order.placed)
    orders.order_transition(order, to="cancelled", by="alice")
    with pytest.raises(ChangedSinceRead) as raised:
        orders.order_transition(stale, to="paid", by="bob")
    assert raised.value.wanted == "paid"
    assert orders.order_get(customer=acme, placed=order.placed, consistent=True).status == "cancelled"


def test_sort_keys_sort_by_time_then_number_and_shards_round_robin() -> None:
    when = datetime(2026, 1, 31, 23, 59, 59, 999_999, tzinfo=UTC)
    assert order_sort_key(when, 42) == "2026-01-31T23:59:59.999Z#000000000000042"
    assert order_sort_key(when, 9) < order_sort_key(when, 10)
    assert [shard_key(n, 4) for n in range(1, 6)] == ["orders#1", "orders#2", "orders#3", "orders#0", "orders#1"]
    with pytest.raises(ValueError, match="naive"):
        order_sort_key(datetime(2026, 1, 1), 1)  # a naive datetime: the point of the test


def test_a_month_back_from_the_31st_lands_on_the_last_day_of_a_shorter_month() -> None:
    assert months_before(datetime(2026, 3, 31, 8, tzinfo=UTC), 1) == datetime(2026, 2, 28, 8, tzinfo=UTC)
    assert months_before(datetime(2026, 1, 15, tzinfo=UTC), 3) == datetime(2025, 10, 15, tzinfo=UTC)
    assert months_before(datetime(2024, 5, 31, tzinfo=UTC), 3) == datetime(2024, 2, 29, tzinfo=UTC)
    assert preset_since("24h", datetime(2026, 3, 1, tzinfo=UTC)) == datetime(2026, 2, 28, tzinfo=UTC)
    with pytest.raises(ValueError, match="unknown range preset"):
        preset_since("2y", datetime(2026, 3, 1, tzinfo=UTC))
