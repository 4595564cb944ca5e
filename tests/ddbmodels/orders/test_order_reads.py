"""Orders by time: the sharded by_time index equals a brute-force scan; customer pages both ways."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

import ddbmodels
from ddbmodels import orders as ddb_orders
from ddbmodels.core import capacity
from ddbmodels.orders.model import PRESETS, OrderItem, preset_since
from tests.ddbmodels.conftest import unique_tenant
from tests.ddbmodels.orders.helpers import unique_counter

pytestmark = pytest.mark.ddblocal

# The orders of this module live in 2001, a time no other test writes in.
NOW = datetime(2001, 6, 1, 12, 0, tzinfo=UTC)
ORDERS = 160


@dataclass(frozen=True)
class Era:
    customers: list[str]
    placed: list[str]  # sort keys of the orders placed here


@pytest.fixture(scope="module")
def era(ddb: ddbmodels.DynamoSettings) -> Era:
    """160 orders of 4 customers spread over the 4 months before NOW, plus two on range boundaries."""
    ddbmodels.configure(endpoint_url=ddb.endpoint_url, region=ddb.region, table_prefix=ddb.table_prefix)
    rng = random.Random(2001)
    customers = [unique_tenant() for _ in range(4)]
    counter = unique_counter()
    times = [
        NOW - timedelta(seconds=rng.randint(0, 120 * 86_400), milliseconds=rng.randint(0, 999)) for _ in range(ORDERS)
    ]
    times += [NOW - timedelta(days=7), NOW]  # exactly on "since" (inside) and on "until" (outside)
    fields = {"product": "storage", "quantity": 10, "delivery": "expedited", "placed_by": "era", "counter": counter}
    placed = [
        ddb_orders.order_place(customer=customers[i % 4], when=when, **fields).item.placed
        for i, when in enumerate(times)
    ]
    return Era(customers=customers, placed=placed)


def brute_force(since: datetime | None = None, until: datetime | None = None, customer: str | None = None) -> list[str]:
    """Sort keys of every order in [since, until), from a consistent Scan of the whole table, oldest first."""
    keys = [
        o.placed
        for o in OrderItem.scan(consistent_read=True)
        if (since is None or o.placed_at >= since)
        and (until is None or o.placed_at < until)
        and (customer is None or o.customer == customer)
    ]
    return sorted(keys)


def keys(orders: list[OrderItem]) -> list[str]:
    return [o.placed for o in orders]


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_range_across_all_shards_equals_a_brute_force_scan(era: Era, preset: str) -> None:
    since = preset_since(preset, NOW)
    newest_first = ddb_orders.orders_in_range(since=since, until=NOW)
    oldest_first = ddb_orders.orders_in_range(since=since, until=NOW, newest_first=False)
    expected = brute_force(since, NOW)
    assert expected  # the era has orders in every preset range
    assert keys(oldest_first) == expected
    assert keys(newest_first) == expected[::-1]


def test_a_range_holds_its_start_and_not_its_end(era: Era) -> None:
    found = keys(ddb_orders.orders_in_range(since=NOW - timedelta(days=7), until=NOW))
    assert era.placed[-2] in found  # placed exactly at since
    assert era.placed[-1] not in found  # placed exactly at until
    assert keys(ddb_orders.orders_in_range(since=NOW, until=NOW + timedelta(milliseconds=1))) == [era.placed[-1]]


def test_an_open_ended_range_and_an_empty_one(era: Era) -> None:
    since = NOW - timedelta(days=30)
    assert keys(ddb_orders.orders_in_range(since=since, newest_first=False)) == brute_force(since)
    assert ddb_orders.orders_in_range(since=NOW, until=NOW - timedelta(days=1)) == []


def test_latest_and_oldest_hundred_are_merged_in_order_and_equal_a_brute_force_sort(era: Era) -> None:
    everything = brute_force()
    latest = keys(ddb_orders.orders_latest(limit=100))
    oldest = keys(ddb_orders.orders_oldest(limit=100))
    assert latest == everything[::-1][:100]
    assert oldest == everything[:100]
    assert latest == sorted(latest, reverse=True)
    assert len(set(latest)) == len(latest) == 100


def test_reading_more_shards_than_were_written_is_harmless_and_fewer_misses_orders(era: Era) -> None:
    since = preset_since("3m", NOW)
    expected = brute_force(since, NOW)
    assert keys(ddb_orders.orders_in_range(since=since, until=NOW, newest_first=False, shards=8)) == expected
    two = keys(ddb_orders.orders_in_range(since=since, until=NOW, newest_first=False, shards=2))
    assert two == [k for k in expected if int(k.rpartition("#")[2]) % 4 in (0, 1)]
    assert len(two) < len(expected)


def test_a_range_query_is_one_query_per_shard_at_half_a_unit_each_or_more(era: Era) -> None:
    with capacity.measure() as meter:
        ddb_orders.orders_in_range(since=preset_since("7d", NOW), until=NOW, shards=4)
    assert meter.by_operation == {"Query": 4}
    assert meter.rcu >= 4 * 0.5


def test_a_customers_pages_walk_its_range_newest_first_and_back(era: Era) -> None:
    customer, since = era.customers[1], preset_since("3m", NOW)
    expected = brute_force(since, NOW, customer)[::-1]
    pages, after = [], None
    while True:
        page = ddb_orders.customer_orders_page(customer=customer, since=since, until=NOW, size=7, after=after)
        pages.append(page)
        if page.older_than is None:
            break
        after = page.older_than
    assert [k for page in pages for k in keys(page.items)] == expected
    assert all(len(page.items) == 7 for page in pages[:-1])
    assert pages[0].newer_than is None
    # Back from the last page: each "newer" page is the page before it.
    back = ddb_orders.customer_orders_page(
        customer=customer, since=since, until=NOW, size=7, after=pages[-1].newer_than, direction="newer"
    )
    assert keys(back.items) == keys(pages[-2].items)


def test_a_customer_sees_only_its_own_orders_and_an_unknown_customer_none(era: Era) -> None:
    page = ddb_orders.customer_orders_page(customer=era.customers[0], size=500)
    assert {o.customer for o in page.items} == {era.customers[0]}
    assert ddb_orders.customer_orders_page(customer=unique_tenant()).items == []
