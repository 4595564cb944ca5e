"""The team's resources by API: members, labels, milestones, leaderboard, orders and the inbox, as the pages show them.

Every one: another team's URL is a 404 (as on the pages), a viewer's read token reads, the answer is what the page's
selector gives. Orders: a page round trip with the pages' cursors, a bad range is a 422 on the field, a tampered
cursor a 400. The inbox is only ever the token's person's own.
"""

from __future__ import annotations

import json
import typing
from datetime import timedelta
from typing import Any

import pytest
from django.test.client import Client

from ddbmodels import inbox, orders, scores
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.api.routers import orders as order_routes
from tracker.forms.orders import FIRST_YEAR, LAST_YEAR
from tracker.models import Membership
from tracker.selectors.projects import project_access
from tracker.services import labels as label_services
from tracker.services import milestones as milestone_services
from tracker.services import orders as order_services

pytestmark = pytest.mark.django_db


def body(response: Any) -> Any:
    return json.loads(response.content)


def membership_of(world: World, role: str) -> Membership:
    user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
    return Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)


TEAM_READS = [
    "members",
    "labels",
    "projects/WEB/milestones",
    "leaderboard",
    "orders",
    "orders/1",
    "inbox",
]


@pytest.mark.parametrize("path", TEAM_READS)
def test_another_teams_url_is_a_404_whatever_it_holds(
    world: World, other_world: World, api_client: ApiClientFactory, path: str
) -> None:
    order_services.order_place(
        membership=membership_of(other_world, "member"), product="seats", quantity=1, delivery="standard"
    )
    client = api_client(world, role="owner", scope="admin")
    response = client.get(f"/api/v1/teams/{other_world.slug}/{path}")
    assert response.status_code == 404


@pytest.mark.parametrize("path", TEAM_READS[:5])
def test_a_viewers_read_token_reads_and_no_token_is_a_401(
    world: World, api_client: ApiClientFactory, path: str
) -> None:
    assert api_client(world, role="viewer", scope="read").get(f"/api/v1/teams/{world.slug}/{path}").status_code == 200
    assert Client().get(f"/api/v1/teams/{world.slug}/{path}").status_code == 401


def test_members_are_the_team_pages_list_without_addresses(world: World, api_client: ApiClientFactory) -> None:
    world.member.first_name, world.member.last_name, world.member.email = "Bob", "Builder", "bob@example.com"
    world.member.save()
    response = api_client(world, role="viewer", scope="read").get(f"/api/v1/teams/{world.slug}/members")
    items = body(response)["items"]
    assert [(m["username"], m["role"]) for m in items] == [
        (world.owner.username, "owner"),
        (world.member.username, "member"),
        (world.viewer.username, "viewer"),
    ]
    assert items[1]["full_name"] == "Bob Builder"
    assert "bob@example.com" not in response.content.decode()


def test_labels_list_a_label_created_a_moment_ago_with_its_state(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="viewer", scope="read")
    assert body(client.get(f"/api/v1/teams/{world.slug}/labels"))["items"] == []  # cached empty now
    label_services.label_create(membership=membership_of(world, "member"), name="bug", colour="red", description="x")
    (label,) = body(client.get(f"/api/v1/teams/{world.slug}/labels"))["items"]
    assert {k: label[k] for k in ("name", "colour", "description", "state", "renamed_to")} == {
        "name": "bug",
        "colour": "red",
        "description": "x",
        "state": "in_use",
        "renamed_to": None,
    }
    assert label["version"] >= 1


def test_milestones_of_a_project_with_their_progress(world: World, api_client: ApiClientFactory) -> None:
    project = project_access(tenant=world.tenant, key="WEB")
    milestone, _ = milestone_services.milestone_create(
        membership=membership_of(world, "member"), project=project, name="v1.0", due=None, description="First"
    )
    client = api_client(world, role="viewer", scope="read")
    (item,) = body(client.get(f"/api/v1/teams/{world.slug}/projects/WEB/milestones"))["items"]
    assert (item["id"], item["name"], item["state"], item["description"]) == (
        milestone.milestone_id,
        "v1.0",
        "open",
        "First",
    )
    assert item["issues"] == {"open": 0, "in_progress": 0, "resolved": 0, "closed": 0}
    assert client.get(f"/api/v1/teams/{world.slug}/projects/NOPE/milestones").status_code == 404


def test_the_leaderboard_top_and_the_callers_own_standing(world: World, api_client: ApiClientFactory) -> None:
    scores.score_add(tenant=world.slug, username=world.owner.username, points=7)
    scores.score_add(tenant=world.slug, username=world.member.username, points=3)
    client = api_client(world, role="member", scope="read")
    answer = body(client.get(f"/api/v1/teams/{world.slug}/leaderboard?k=50"))
    assert answer["k"] == 50
    assert [(r["rank"], r["username"], r["score"]) for r in answer["top"]] == [
        (1, world.owner.username, 7),
        (2, world.member.username, 3),
    ]
    assert answer["you"] == {"username": world.member.username, "score": 3, "rank": 2, "exact": True, "on_board": True}
    assert client.get(f"/api/v1/teams/{world.slug}/leaderboard?k=11").status_code == 422


# ------------------------------------------------------------------- orders


def place(world: World, n: int) -> list[int]:
    membership = membership_of(world, "member")
    return [
        int(
            order_services.order_place(
                membership=membership, product="seats", quantity=i + 1, delivery="standard"
            ).number
        )
        for i in range(n)
    ]


def test_orders_page_by_page_newest_first_with_link_headers(
    world: World, api_client: ApiClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tracker.selectors.orders.PAGE_SIZE", 2)
    numbers = place(world, 5)
    client = api_client(world, role="viewer", scope="read")
    seen: list[int] = []
    url: str | None = f"/api/v1/teams/{world.slug}/orders?range=7d"
    pages = 0
    while url:
        response = client.get(url)
        assert response.status_code == 200
        page = body(response)
        seen += [order["number"] for order in page["items"]]
        pages += 1
        if page["next_cursor"]:
            assert 'rel="next"' in response["Link"]
            assert "range=7d" in response["Link"]  # the list's other parameters kept
            url = response["Link"].split(">")[0].lstrip("<")
        else:
            url = None
    assert seen == sorted(numbers, reverse=True)
    assert pages == 3


def test_an_order_by_number_is_the_teams_own_only(world: World, api_client: ApiClientFactory) -> None:
    (number,) = place(world, 1)
    client = api_client(world, role="viewer", scope="read")
    order = body(client.get(f"/api/v1/teams/{world.slug}/orders/{number}"))
    assert (order["number"], order["product"], order["quantity"], order["status"]) == (number, "seats", 1, "pending")
    assert order["placed_by"] == world.member.username
    assert client.get(f"/api/v1/teams/{world.slug}/orders/{number + 1}").status_code == 404
    assert client.get(f"/api/v1/teams/{world.slug}/orders/0").status_code == 422


@pytest.mark.parametrize(
    "query",
    ["range=2d", "from=2026-02-01&to=2026-01-01", "range=7d&from=2026-01-01", f"from={FIRST_YEAR - 1}-12-31"],
)
def test_a_range_the_orders_page_refuses_is_a_422_and_reads_nothing(
    world: World, api_client: ApiClientFactory, query: str
) -> None:
    response = api_client(world, role="viewer", scope="read").get(f"/api/v1/teams/{world.slug}/orders?{query}")
    assert response.status_code == 422


def test_a_cursor_of_another_range_or_tampered_is_a_400(world: World, api_client: ApiClientFactory) -> None:
    place(world, 30)
    client = api_client(world, role="viewer", scope="read")
    cursor = body(client.get(f"/api/v1/teams/{world.slug}/orders?range=7d"))["next_cursor"]
    assert cursor
    assert client.get(f"/api/v1/teams/{world.slug}/orders?range=24h&cursor={cursor}").status_code == 400
    assert client.get(f"/api/v1/teams/{world.slug}/orders?range=7d&cursor={cursor[:-2]}xx").status_code == 400


def test_the_schemas_enums_are_the_orders_own() -> None:
    assert typing.get_args(order_routes.Product) == tuple(orders.PRODUCTS)
    assert typing.get_args(order_routes.Delivery) == orders.DELIVERY_METHODS
    assert typing.get_args(order_routes.OrderStatus) == orders.STATUSES
    assert typing.get_args(order_routes.Preset) == orders.PRESETS
    assert (order_routes.FIRST_YEAR, order_routes.LAST_YEAR) == (FIRST_YEAR, LAST_YEAR)
    assert order_routes.NUMBER_MAX == orders.MAX_ORDER_NUMBER


# ------------------------------------------------------------------- inbox


def deliver(world: World, username: str, n: int) -> list[str]:
    """``n`` notifications for ``username``, oldest first; their event keys."""
    start = utcnow() - timedelta(minutes=n)
    keys = []
    for i in range(n):
        key = f"{(start + timedelta(minutes=i)).strftime('%Y-%m-%dT%H:%M:%S.000Z')}#{i:08x}"
        note = inbox.Note(username, "WEB", i + 1, world.owner.username, Kind.ISSUE_STATUS, f"resolved WEB-{i + 1}")
        inbox.deliver(tenant=world.slug, event_key=key, notes=[note])
        keys.append(key)
    return keys


def test_the_inbox_is_the_tokens_persons_own_newest_first(world: World, api_client: ApiClientFactory) -> None:
    keys = deliver(world, world.member.username, 3)
    deliver(world, world.viewer.username, 1)
    answer = body(api_client(world, role="member", scope="read").get(f"/api/v1/teams/{world.slug}/inbox"))
    assert answer["unread"] == 3
    assert [note["id"] for note in answer["items"]] == [key.replace("#", "~") for key in reversed(keys)]
    first = answer["items"][0]
    assert (first["type"], first["issue"], first["actor"], first["unread"]) == (
        "issue.status_changed",
        "WEB-3",
        world.owner.username,
        True,
    )
    viewer = body(api_client(world, role="viewer", scope="read").get(f"/api/v1/teams/{world.slug}/inbox"))
    assert [note["issue"] for note in viewer["items"]] == ["WEB-1"]


def test_an_inbox_cursor_is_bound_to_its_person(
    world: World, api_client: ApiClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tracker.selectors.inbox.PAGE_SIZE", 2)
    deliver(world, world.member.username, 3)
    member = api_client(world, role="member", scope="read")
    first = member.get(f"/api/v1/teams/{world.slug}/inbox")
    cursor = body(first)["next_cursor"]
    assert cursor
    assert 'rel="next"' in first["Link"]
    assert [n["issue"] for n in body(member.get(f"/api/v1/teams/{world.slug}/inbox?cursor={cursor}"))["items"]] == [
        "WEB-1"
    ]
    viewer = api_client(world, role="viewer", scope="read")
    assert viewer.get(f"/api/v1/teams/{world.slug}/inbox?cursor={cursor}").status_code == 400


def test_one_milestone_with_its_etag_and_a_304(world: World, api_client: ApiClientFactory) -> None:
    project = project_access(tenant=world.tenant, key="WEB")
    milestone, _ = milestone_services.milestone_create(
        membership=membership_of(world, "member"), project=project, name="v2", due=None
    )
    client = api_client(world, role="viewer", scope="read")
    path = f"/api/v1/teams/{world.slug}/projects/WEB/milestones/{milestone.milestone_id}"
    response = client.get(path)
    assert response.status_code == 200
    assert body(response)["name"] == "v2"
    tag = response["ETag"]
    assert tag.startswith('"1.')
    assert client.get(path, headers={"If-None-Match": tag}).status_code == 304
    assert client.get(f"{path}x").status_code == 404


# ------------------------------------------------------------------- placing orders


def order_post(client: Any, world: World, data: Any, key: str = "order-1") -> Any:
    return client.post_json(f"/api/v1/teams/{world.slug}/orders", data, headers={"Idempotency-Key": key})


def team_orders(world: World) -> list[tuple[str, int]]:
    page = orders.customer_orders_page(customer=world.slug, size=100)
    return [(order.product, int(order.quantity)) for order in page.items]


def test_a_member_places_an_order_once_per_key_and_reads_it_back_with_its_etag(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world, role="member", scope="write")
    first = order_post(client, world, {"product": "storage", "quantity": 20})
    assert first.status_code == 201
    placed = body(first)
    assert (placed["product"], placed["quantity"], placed["delivery"], placed["status"]) == (
        "storage",
        20,
        "standard",
        "pending",
    )
    assert first["Location"].endswith(f"/api/v1/teams/{world.slug}/orders/{placed['number']}")
    again = order_post(client, world, {"quantity": 20, "product": "storage"})  # the same JSON, keys in another order
    assert (again.status_code, again.content) == (201, first.content)
    assert team_orders(world) == [("storage", 20)]
    assert order_post(client, world, {"product": "storage", "quantity": 21}).status_code == 422  # the key reused
    assert team_orders(world) == [("storage", 20)]

    one = client.get(f"/api/v1/teams/{world.slug}/orders/{placed['number']}")
    assert one.status_code == 200
    assert one["ETag"].startswith('"pending.')
    path = f"/api/v1/teams/{world.slug}/orders/{placed['number']}"
    assert client.get(path, headers={"If-None-Match": one["ETag"]}).status_code == 304


@pytest.mark.parametrize(
    "data",
    [
        {"product": "seats", "quantity": 501},
        {"product": "seats", "quantity": 0},
        {"product": "lunch", "quantity": 1},
        {"product": "seats", "quantity": 1, "delivery": "drone"},
        {"product": "seats", "quantity": 1, "price": 0},
        "seats",
    ],
)
def test_an_order_the_order_form_refuses_is_a_422_and_places_nothing(
    world: World, api_client: ApiClientFactory, data: Any
) -> None:
    client = api_client(world, role="member", scope="write")
    response = order_post(client, world, json.dumps(data) if isinstance(data, str) else data)
    assert response.status_code == 422
    assert team_orders(world) == []


def test_a_viewer_cannot_place_an_order(world: World, api_client: ApiClientFactory) -> None:
    response = order_post(api_client(world, role="viewer", scope="read"), world, {"product": "seats", "quantity": 1})
    assert response.status_code == 403
    assert team_orders(world) == []


# ------------------------------------------------------------------- marking the inbox read


def test_mark_all_read_answers_the_count_and_its_replay_answers_the_first_count(
    world: World, api_client: ApiClientFactory
) -> None:
    deliver(world, world.member.username, 2)
    deliver(world, world.viewer.username, 1)
    client = api_client(world, role="member", scope="read")  # any scope: it is the caller's own inbox
    path = f"/api/v1/teams/{world.slug}/inbox/read"
    first = client.post(path, headers={"Idempotency-Key": "read-1"})
    assert (first.status_code, body(first)) == (200, {"marked": 2})
    again = client.post(path, headers={"Idempotency-Key": "read-1"})
    assert (again.status_code, again.content) == (200, first.content)
    assert body(client.post(path, headers={"Idempotency-Key": "read-2"})) == {"marked": 0}
    assert inbox.head_get(tenant=world.slug, username=world.member.username).unread == 0
    assert inbox.head_get(tenant=world.slug, username=world.viewer.username).unread == 1  # only the caller's


def test_mark_one_read_is_the_callers_own_notification_only(world: World, api_client: ApiClientFactory) -> None:
    (mine,) = deliver(world, world.member.username, 1)
    client = api_client(world, role="member", scope="read")
    note_id = mine.replace("#", "~")
    path = f"/api/v1/teams/{world.slug}/inbox/{note_id}/read"
    response = client.post(path, headers={"Idempotency-Key": "one"})
    assert response.status_code == 200
    assert (body(response)["id"], body(response)["unread"]) == (note_id, False)
    assert inbox.head_get(tenant=world.slug, username=world.member.username).unread == 0
    viewer = api_client(world, role="viewer", scope="read")
    assert viewer.post(path, headers={"Idempotency-Key": "one"}).status_code == 404  # not the viewer's
    bad = f"/api/v1/teams/{world.slug}/inbox/not-a-notification/read"
    assert client.post(bad, headers={"Idempotency-Key": "two"}).status_code == 404
    assert client.post(path).status_code == 400  # no Idempotency-Key
