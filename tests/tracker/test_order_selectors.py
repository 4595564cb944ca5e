"""Staff selectors over every tenant's orders (for the admin): latest, oldest, ranges, by number."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test.utils import override_settings

from ddbmodels.core import capacity
from ddbmodels.core.keys import utcnow
from ddbmodels.orders import OrderItem
from tests.ddbmodels.orders.helpers import unique_counter
from tests.tracker.conftest import World
from tests.tracker.orders_helpers import new_order
from tracker.selectors import orders as selectors


def all_orders_newest_first() -> list[str]:
    """Every order's sort key from a consistent Scan of the whole table: the brute-force answer."""
    return sorted((o.placed for o in OrderItem.scan(consistent_read=True)), reverse=True)


def test_staff_see_the_latest_and_oldest_orders_of_every_tenant_in_order(world: World, other_world: World) -> None:
    now = utcnow()
    placed = [new_order(w, when=now - timedelta(seconds=i)).placed for i, w in enumerate([world, other_world] * 3)]
    everything = all_orders_newest_first()
    latest = [o.placed for o in selectors.staff_orders_latest()]
    assert latest == everything[:100]
    assert set(placed) <= set(latest)  # the six just placed are among the newest hundred
    assert [o.placed for o in selectors.staff_orders_oldest(limit=10)] == everything[::-1][:10]


@pytest.mark.parametrize("preset", ["24h", "7d", "1m", "3m"])
def test_staff_ranges_hold_every_tenants_orders_of_the_range(world: World, other_world: World, preset: str) -> None:
    now = utcnow()
    recent = new_order(world, when=now - timedelta(hours=1))
    theirs = new_order(other_world, when=now - timedelta(hours=2))
    ancient = new_order(world, when=now - timedelta(days=400))
    found = [o.placed for o in selectors.staff_orders_in_range(preset=preset, now=now)]
    assert {recent.placed, theirs.placed} <= set(found)
    assert ancient.placed not in found
    assert found == sorted(found, reverse=True)


def test_staff_ranges_refuse_an_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown range preset"):
        selectors.staff_orders_in_range(preset="forever")


def test_staff_find_any_tenants_order_by_number(other_world: World) -> None:
    theirs = new_order(other_world, counter=unique_counter(start_high=True))
    found = selectors.staff_order_find(number=int(theirs.number))
    assert found is not None
    assert found.customer == other_world.slug
    assert selectors.staff_order_find(number=int(theirs.number) + 10**6) is None


def test_staff_reads_query_every_shard_of_the_setting(world: World) -> None:
    new_order(world)
    with override_settings(ORDER_SHARDS=6), capacity.measure() as meter:
        selectors.staff_orders_latest(limit=5)
    assert meter.by_operation == {"Query": 6}
