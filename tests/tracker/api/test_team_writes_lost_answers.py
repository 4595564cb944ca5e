"""Comments and orders placed by API while DynamoDB loses 30 % of its answers to writes (after writing): a client
that sends each POST again with the same Idempotency-Key until it gets its 201 finds each exactly once.

A lost answer either is retried by botocore (the item's own request token tells a retried write that landed from a
race) or reaches the client as a 503 with Retry-After; the client's retry with the same key is then answered the
first comment or order (a replay), never a second one. In atomic numbering a lost counter answer or a replay draws
a number nobody gets: order numbers may have gaps, never twins.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels import orders as ddb_orders
from ddbmodels.core.keys import issue_stream
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World

pytestmark = pytest.mark.django_db
LOST_ANSWERS_SEED = 22
KEYS = 8
TRIES = 12


def until_created(client: ApiClient, path: str, data: dict[str, Any], key: str) -> tuple[dict[str, Any], int]:
    """POST ``data`` with ``key`` again after every 503 (as a client honouring Retry-After would); the 201's body and
    how many tries it took. Anything but 201 or 503 fails the test."""
    for tries in range(1, TRIES + 1):
        response = client.post_json(path, data, headers={"Idempotency-Key": key})
        if response.status_code == 201:
            return json.loads(response.content), tries
        assert response.status_code == 503, response.content
        assert response["Retry-After"]
    raise AssertionError(f"{key}: no 201 after {TRIES} tries")


def test_comments_under_lost_answers_are_each_added_once(
    world: World, api_client: ApiClientFactory, request: pytest.FixtureRequest
) -> None:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Busy", reporter=world.member.username)
    client = api_client(world, role="member", scope="write")
    lost_answers = request.getfixturevalue("lost_answers")  # from here on: the setup above was not lossy
    path = f"/api/v1/teams/{world.slug}/projects/WEB/issues/1/comments"
    answered = {f"k{i}": until_created(client, path, {"body": f"comment {i}"}, f"k{i}")[0] for i in range(KEYS)}
    page = ddb_comments.comment_page(stream=issue_stream(world.slug, "WEB", 1))
    assert sorted(c.body for c in page.comments) == sorted(f"comment {i}" for i in range(KEYS))
    assert {c.comment_id for c in page.comments} == {body["id"] for body in answered.values()}
    assert lost_answers.lost > 0  # the faults did happen


def test_orders_under_lost_answers_are_each_placed_once(
    world: World, api_client: ApiClientFactory, request: pytest.FixtureRequest
) -> None:
    client = api_client(world, role="member", scope="write")
    lost_answers = request.getfixturevalue("lost_answers")  # from here on: the setup above was not lossy
    path = f"/api/v1/teams/{world.slug}/orders"
    numbers = [
        until_created(client, path, {"product": "seats", "quantity": i + 1}, f"o{i}")[0]["number"] for i in range(KEYS)
    ]
    placed = ddb_orders.customer_orders_page(customer=world.slug, size=100).items
    assert sorted(int(o.quantity) for o in placed) == list(range(1, KEYS + 1))
    assert sorted(int(o.number) for o in placed) == sorted(numbers)
    assert lost_answers.lost > 0
