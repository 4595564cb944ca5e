"""Order pages end to end: place, detail, status moves by owners, the list with ranges and cursors."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test.utils import override_settings

from ddbmodels import orders
from ddbmodels.core import capacity
from ddbmodels.core.keys import utcnow
from ddbmodels.counters import ORDERS_COUNTER, counter_value
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, pager_link, text
from tests.tracker.inbox_helpers import without_header
from tests.tracker.orders_helpers import (
    listed_numbers,
    load_order,
    new_order,
    orders_unchanged,
    orders_url,
    stored_orders,
)

# ------------------------------------------------------------------------------- place and read


@pytest.mark.parametrize("role", ["member", "owner"])
def test_a_member_or_owner_places_an_order_and_sees_it_with_the_next_global_number(world: World, role: str) -> None:
    client = world.client_for(getattr(world, role))
    expected = counter_value(ORDERS_COUNTER) + 1
    response = client.post(
        orders_url(world, "new/"), {"product": "storage", "quantity": "250", "delivery": "expedited"}
    )
    assert response.status_code == 302
    assert response["Location"] == orders_url(world, f"{expected}/")
    assert flash(response) == [f"Placed order #{expected}."]
    page = text(client.get(response["Location"]))
    assert f"#{expected}</h1>" in page
    for shown in ("<dd>Storage (GB)</dd>", "<dd>250</dd>", "<dd>Expedited (same business day)</dd>", ">Pending</span>"):
        assert shown in page
    stored = load_order(world, expected)
    assert (stored.product, stored.quantity, stored.delivery, stored.status) == ("storage", 250, "expedited", "pending")
    assert stored.placed_by == getattr(world, role).username
    assert abs(stored.placed_at - utcnow()) < timedelta(seconds=30)


def test_the_detail_page_right_after_placing_does_not_wait_for_the_number_index(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The by_number index is eventually consistent; placing remembers the key in Redis.
    monkeypatch.setattr(orders, "order_key", lambda **_: None)
    client = world.client_for(world.member)
    response = client.post(orders_url(world, "new/"), {"product": "seats", "quantity": "2", "delivery": "standard"})
    assert client.get(response["Location"]).status_code == 200


def test_the_order_page_finds_an_order_through_the_index_when_the_cache_is_cold(world: World) -> None:
    order = new_order(world)  # placed outside the web layer: nothing cached
    with capacity.measure() as meter:
        response = world.client_for(world.viewer).get(orders_url(world, f"{order.number}/"))
    assert response.status_code == 200
    assert without_header(meter) == {"Query": 1, "GetItem": 1}
    with capacity.measure() as meter:
        world.client_for(world.viewer).get(orders_url(world, f"{order.number}/"))
    assert meter.by_operation == {"GetItem": 1}  # the key is cached now


def test_gapless_numbering_is_a_setting_and_uses_one_transaction(world: World) -> None:
    client = world.client_for(world.member)
    with override_settings(ORDER_NUMBERING="gapless"), capacity.measure() as meter:
        response = client.post(orders_url(world, "new/"), {"product": "seats", "quantity": "1", "delivery": "standard"})
    assert response.status_code == 302
    assert meter.by_operation["TransactWriteItems"] == 1
    assert "UpdateItem" not in meter.by_operation
    assert load_order(world, counter_value(ORDERS_COUNTER)).quantity == 1


# ------------------------------------------------------------------------------- status moves


def test_an_owner_cannot_mark_an_order_paid_or_fulfilled_nor_cancel_a_paid_one(world: World) -> None:
    # Payment and fulfilment are the seller's steps (staff, in the admin); before issue 20 owners took them.
    order = new_order(world)
    client = world.client_for(world.owner)
    status_url = orders_url(world, f"{order.number}/status/")
    detail = text(client.get(orders_url(world, f"{order.number}/")))
    assert re.findall(r'name="to" value="(\w+)"', detail) == ["cancelled"]  # only "Cancel order…" is offered
    assert "Tracker marks the order paid when your payment arrives" in detail
    with orders_unchanged(world):
        response = client.post(status_url, {"to": "paid", "confirm": "yes"})
        assert response.status_code == 403
        assert "Payment and fulfilment are recorded by Tracker staff, not by the team." in text(response)
        assert client.post(status_url, {"to": "fulfilled"}).status_code == 409  # not a step from pending
    orders.order_transition(load_order(world, int(order.number)), to="paid", by="staff")  # the seller's step
    detail = text(client.get(orders_url(world, f"{order.number}/")))
    assert 'name="to"' not in detail
    assert "To cancel a paid order, ask Tracker staff." in detail
    with orders_unchanged(world):
        assert "Payment and fulfilment" in text(client.post(status_url, {"to": "fulfilled"}))
        refused = client.post(status_url, {"to": "cancelled", "confirm": "yes"})
        assert refused.status_code == 403
        assert "A paid order is cancelled by Tracker staff" in text(refused)
    assert load_order(world, int(order.number)).status == "paid"


def test_cancelling_asks_first_and_changes_nothing_until_confirmed(world: World) -> None:
    order = new_order(world)
    client = world.client_for(world.owner)
    detail = text(client.get(orders_url(world, f"{order.number}/")))
    assert '<button type="submit" name="to" value="cancelled" class="danger">Cancel order…</button>' in detail
    with orders_unchanged(world):
        asked = client.post(orders_url(world, f"{order.number}/status/"), {"to": "cancelled"})
    assert asked.status_code == 200
    page = text(asked)
    assert f"<h1>Cancel order #{order.number}?</h1>" in page
    assert '<input type="hidden" name="confirm" value="yes">' in page
    assert f'href="{orders_url(world, f"{order.number}/")}">No, keep it</a>' in page
    assert load_order(world, int(order.number)).status == "pending"
    confirmed = client.post(orders_url(world, f"{order.number}/status/"), {"to": "cancelled", "confirm": "yes"})
    assert confirmed.status_code == 302
    assert flash(confirmed) == [f"Order #{order.number} is now Cancelled."]
    assert load_order(world, int(order.number)).status == "cancelled"


def test_the_cancel_question_is_for_owners_only(world: World) -> None:
    order = new_order(world)
    with orders_unchanged(world):
        response = world.client_for(world.member).post(
            orders_url(world, f"{order.number}/status/"), {"to": "cancelled"}
        )
    assert response.status_code == 403


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_members_and_viewers_see_no_status_buttons(world: World, role: str) -> None:
    order = new_order(world)
    page = text(world.client_for(getattr(world, role)).get(orders_url(world, f"{order.number}/")))
    assert 'name="to"' not in page
    assert ">Pending</span>" in page


# ------------------------------------------------------------------------------- the list


def test_the_list_shows_the_tenants_orders_newest_first_and_pages_through_them(
    world: World, other_world: World
) -> None:
    now = utcnow()
    mine = [int(new_order(world, when=now - timedelta(minutes=i)).number) for i in range(30)]
    new_order(other_world)
    client = world.client_for(world.viewer)
    first = client.get(orders_url(world))
    assert listed_numbers(first) == mine[:25]
    assert pager_link(first, "prev") is None
    second = client.get(orders_url(world) + pager_link(first, "next"))
    assert listed_numbers(second) == mine[25:]
    assert pager_link(second, "next") is None
    back = client.get(orders_url(world) + pager_link(second, "prev"))
    assert listed_numbers(back) == mine[:25]


@pytest.mark.parametrize(
    ("query", "ages_shown"),
    [
        pytest.param("range=24h", [1], id="24h"),
        pytest.param("range=7d", [1, 5], id="7d"),
        pytest.param("range=1m", [1, 5, 20], id="1m"),
        pytest.param("range=3m", [1, 5, 20, 80], id="3m"),
        pytest.param("", [1, 5, 20, 80, 200], id="all-time"),
    ],
)
def test_range_presets_show_only_the_orders_placed_within_them(world: World, query: str, ages_shown: list[int]) -> None:
    now = utcnow()
    by_age = {
        days: int(new_order(world, when=now - timedelta(days=days, hours=-12)).number) for days in (1, 5, 20, 80, 200)
    }
    # (each order is half a day younger than its age in days, so it is safely inside that range)
    response = world.client_for(world.member).get(orders_url(world, f"?{query}"))
    assert response.status_code == 200
    assert listed_numbers(response) == [by_age[days] for days in ages_shown]


def test_a_custom_date_range_includes_both_days_and_keeps_it_across_pages(world: World) -> None:
    base = utcnow().replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=10)
    inside = [int(new_order(world, when=base + timedelta(days=d, minutes=m)).number) for d in (0, 2) for m in range(14)]
    new_order(world, when=base - timedelta(days=1))
    new_order(world, when=base + timedelta(days=3))
    start, end = base.date(), (base + timedelta(days=2)).date()
    client = world.client_for(world.member)
    first = client.get(orders_url(world, f"?from={start}&to={end}"))
    assert "Custom dates" in text(first)
    link = pager_link(first, "next")
    assert link.startswith(f"?from={start}&to={end}&cursor=")
    second = client.get(orders_url(world) + link)
    assert listed_numbers(first) + listed_numbers(second) == sorted(inside, reverse=True)


def test_the_list_offers_place_an_order_to_members_but_not_to_viewers(world: World) -> None:
    assert "Place an order" in text(world.client_for(world.member).get(orders_url(world)))
    assert "Place an order" not in text(world.client_for(world.viewer).get(orders_url(world)))
    assert stored_orders(world) == []
