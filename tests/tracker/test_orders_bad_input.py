"""Bad input on the order pages is answered (form error, 400, 403, 404, 405) and writes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from ddbmodels.counters import ORDERS_COUNTER, counter_value
from ddbmodels.orders import OrderItem
from tests.dynamodb_faults import Refusal
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, assert_form_error, text
from tests.tracker.orders_helpers import load_order, new_order, orders_unchanged, orders_url, stored_orders

VALID = {"product": "seats", "quantity": "3", "delivery": "standard"}


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        pytest.param("quantity", "0", "greater than or equal to 1", id="zero"),
        pytest.param("quantity", "-5", "greater than or equal to 1", id="negative"),
        pytest.param("quantity", "501", "At most 500 seats per order.", id="501-seats"),
        pytest.param("quantity", "99999999999999999999999", "At most 500 seats", id="absurd"),
        pytest.param("quantity", "1.5", "Enter a whole number.", id="fraction"),
        pytest.param("quantity", "lots", "Enter a whole number.", id="words"),
        pytest.param("quantity", "", "This field is required.", id="missing"),
        pytest.param("product", "rockets", "Select a valid choice. rockets is not one", id="unknown-product"),
        pytest.param("delivery", "pigeon", "Select a valid choice. pigeon is not one", id="unknown-delivery"),
    ],
)
def test_a_bad_field_on_the_order_form_is_a_form_error_and_orders_nothing(
    world: World, field: str, value: str, error: str
) -> None:
    with orders_unchanged(world):
        response = world.client_for(world.member).post(orders_url(world, "new/"), {**VALID, field: value})
    assert_form_error(response, field, error)


def test_each_product_has_its_own_maximum_and_the_maximum_itself_is_accepted(world: World) -> None:
    client = world.client_for(world.member)
    with orders_unchanged(world):
        response = client.post(orders_url(world, "new/"), {**VALID, "product": "support_hours", "quantity": "201"})
    assert "At most 200 support hours per order." in text(response)
    response = client.post(orders_url(world, "new/"), {**VALID, "product": "storage", "quantity": "10000"})
    assert response.status_code == 302
    assert [o["q"] for o in stored_orders(world)] == [{"N": "10000"}]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_viewer_cannot_place_an_order(world: World, method: str) -> None:
    client = world.client_for(world.viewer)
    with orders_unchanged(world):
        response = getattr(client, method)(orders_url(world, "new/"), VALID if method == "post" else None)
    assert response.status_code == 403
    assert "Viewers cannot place orders." in text(response)


def test_a_failed_write_after_the_number_was_taken_is_a_503_and_no_order(
    world: World, dynamodb_refuses: Callable[..., Refusal]
) -> None:
    # DynamoDB itself refuses the order's PutItem: the service, the numbering and the view run for real.
    refused = dynamodb_refuses("PutItem", table=OrderItem.Meta.table_name, code="InternalServerError")
    number_before = counter_value(ORDERS_COUNTER)
    response = world.client_for(world.member).post(orders_url(world, "new/"), VALID)
    assert response.status_code == 503
    assert "could not be placed right now and nothing was ordered" in text(response)
    assert refused.refused == [OrderItem.Meta.table_name]  # the one write of the order was attempted…
    assert stored_orders(world) == []  # …and DynamoDB holds no order of the tenant
    assert counter_value(ORDERS_COUNTER) == number_before + 1  # the number was taken first: the documented gap


def test_a_transition_the_status_does_not_allow_is_refused_with_a_message(world: World) -> None:
    order = new_order(world)
    client = world.client_for(world.owner)
    client.post(orders_url(world, f"{order.number}/status/"), {"to": "cancelled", "confirm": "yes"})
    for refused in ("paid", "fulfilled", "cancelled", "pending"):
        with orders_unchanged(world):
            response = client.post(orders_url(world, f"{order.number}/status/"), {"to": refused})
        assert response.status_code == 409  # the error page says why, and links back to the order
        label = refused.capitalize()
        assert f"Order #{order.number} is Cancelled; it cannot become {label}." in text(response)
        assert f'href="{orders_url(world, f"{order.number}/")}"' in text(response)
    assert load_order(world, int(order.number)).status == "cancelled"


@pytest.mark.parametrize("payload", [{"to": "shipped"}, {"to": ""}, {}], ids=["unknown", "empty", "missing"])
def test_an_unknown_status_is_a_400(world: World, payload: dict[str, str]) -> None:
    order = new_order(world)
    with orders_unchanged(world):
        response = world.client_for(world.owner).post(orders_url(world, f"{order.number}/status/"), payload)
    assert response.status_code == 400
    assert "Unknown order status." in text(response)


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_only_owners_move_orders(world: World, role: str) -> None:
    order = new_order(world)
    with orders_unchanged(world):
        response = world.client_for(getattr(world, role)).post(
            orders_url(world, f"{order.number}/status/"), {"to": "paid"}
        )
    assert response.status_code == 403
    assert "Only owners cancel orders." in text(response)


def test_the_status_url_only_takes_post(world: World) -> None:
    order = new_order(world)
    assert world.client_for(world.owner).get(orders_url(world, f"{order.number}/status/")).status_code == 405


def test_another_tenants_order_number_is_a_404_like_a_missing_one(world: World, other_world: World) -> None:
    theirs = new_order(other_world)
    client = world.client_for(world.owner)
    for suffix in (f"{theirs.number}/", f"{int(theirs.number) + 10**6}/"):
        response = client.get(orders_url(world, suffix))
        assert response.status_code == 404
        assert NOT_FOUND_TEXT in text(response)
    with orders_unchanged(world, other_world):
        response = client.post(orders_url(world, f"{theirs.number}/status/"), {"to": "paid"})
    assert response.status_code == 404
    # Nor through the other tenant's URL, which is not the user's tenant.
    assert client.get(orders_url(other_world, f"{theirs.number}/")).status_code == 404
    assert client.get(orders_url(other_world)).status_code == 404


@pytest.mark.parametrize("suffix", ["0/", "0012/", "1234567890123456/", "abc/", "-1/"])
def test_a_malformed_order_number_is_a_404(world: World, suffix: str) -> None:
    assert world.client_for(world.member).get(orders_url(world, suffix)).status_code == 404


def test_posts_without_a_csrf_token_are_refused_and_write_nothing(world: World) -> None:
    order = new_order(world)
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    with orders_unchanged(world):
        assert client.post(orders_url(world, "new/"), VALID).status_code == 403
        assert client.post(orders_url(world, f"{order.number}/status/"), {"to": "paid"}).status_code == 403
    assert load_order(world, int(order.number)).status == "pending"


BAD_LIST_QUERIES = {  # the query string (also the test's id) → the form error shown on the list page
    "range=2y": "Select a valid choice. 2y is not one",
    "from=2026-13-01": "Enter a valid date.",
    "from=not-a-date&to=2026-05-01": "Enter a valid date.",
    "from=2026-05-02&to=2026-05-01": "The end date is before the start date.",
    "from=1066-10-14": "Choose a date between 2000 and 2999.",
    "to=9999-12-31": "Choose a date between 2000 and 2999.",
    "range=7d&from=2026-05-01": "Choose a preset range or dates, not both.",
}


@pytest.mark.parametrize(("query", "message"), list(BAD_LIST_QUERIES.items()), ids=list(BAD_LIST_QUERIES))
def test_a_bad_date_range_is_the_list_page_again_with_a_form_error_and_no_read(
    world: World, query: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_order(world)
    looked_up: list[object] = []
    monkeypatch.setattr("tracker.views.orders.order_list_page", lambda **kw: looked_up.append(kw))
    response = world.client_for(world.member).get(orders_url(world, f"?{query}"))
    assert response.status_code == 400
    page = text(response)
    assert response.context["filters"].errors  # type: ignore[index]
    assert f"<li>{message}" in page or f": {message}" in page
    assert 'id="order-dates"' in page  # the form is there to fix the dates…
    assert "<h1>That did not work</h1>" not in page  # …not the bare error page
    assert "<table" not in page  # and no list of orders for a range that means nothing
    assert looked_up == []


def test_a_bad_date_keeps_what_was_typed_in_the_form(world: World) -> None:
    response = world.client_for(world.member).get(orders_url(world, "?from=2026-05-02&to=2026-05-01"))
    assert 'name="from" value="2026-05-02"' in text(response)
    assert 'name="to" value="2026-05-01"' in text(response)


def test_a_bad_page_link_is_a_400_that_says_why(world: World) -> None:
    response = world.client_for(world.member).get(orders_url(world, "?cursor=not-a-cursor"))
    assert response.status_code == 400
    assert "This page link is invalid." in text(response)


def test_a_cursor_from_another_range_or_tenant_is_a_400(world: World, other_world: World) -> None:
    for w in (world, other_world):
        for _ in range(26):
            new_order(w)
    cursor = world.client_for(world.member).get(orders_url(world)).context["page"].next_cursor
    assert world.client_for(world.member).get(orders_url(world, f"?range=7d&cursor={cursor}")).status_code == 400
    other_world_member = other_world.client_for(other_world.member)
    response = other_world_member.get(orders_url(other_world, f"?cursor={cursor}"))
    assert response.status_code == 400
    assert "This page link belongs to another list." in text(response)
