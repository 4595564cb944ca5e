"""What the team's resources cost DynamoDB per call, as their OpenAPI entries state (``x-dynamodb-cost``) and every
answer's ``X-DynamoDB-Requests`` header says: a list page is its one Query (plus the issue's GetItem for comments,
the inbox head's for the inbox), the cached lists read nothing when warm, a replayed POST writes nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import issues as ddb_issues
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.api.test_team_resources_api import deliver, place
from tests.tracker.conftest import World

pytestmark = pytest.mark.django_db


def spent(response: Any) -> tuple[int, float, float]:
    """(requests, RCU, WCU) the call cost, from its headers."""
    return (
        int(response["X-DynamoDB-Requests"]),
        float(response["X-DynamoDB-RCU"]),
        float(response["X-DynamoDB-WCU"]),
    )


def warm(client: Any, path: str) -> Any:
    """The second answer of ``path`` (the first warmed the caches: the project, a cached list)."""
    client.get(path)
    return client.get(path)


def test_each_list_page_is_its_one_query_whatever_the_list_holds(
    world: World, api_client: ApiClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Talked about", reporter="x")
    place(world, 30)
    deliver(world, world.member.username, 30)
    client = api_client(world, role="member", scope="write")
    base = f"/api/v1/teams/{world.slug}"
    for i in range(25):
        client.post_json(
            f"{base}/projects/WEB/issues/1/comments", {"body": f"c{i}"}, headers={"Idempotency-Key": f"{i}"}
        )

    assert spent(warm(client, f"{base}/orders"))[0] == 1  # the orders' Query
    assert spent(warm(client, f"{base}/projects/WEB/issues/1/comments"))[0] == 2  # the issue + the comments' Query
    assert spent(warm(client, f"{base}/inbox"))[0] == 2  # the inbox head + the notifications' Query
    assert spent(warm(client, f"{base}/labels"))[0] == 1  # the catalogue's Query, fresh as the labels page
    assert spent(warm(client, f"{base}/members")) == (0, 0.0, 0.0)  # Django's database only
    assert spent(warm(client, f"{base}/projects/WEB/milestones")) == (0, 0.0, 0.0)  # cached, as the page's


def test_replays_write_nothing(world: World, api_client: ApiClientFactory) -> None:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Talked about", reporter="x")
    deliver(world, world.member.username, 2)
    client = api_client(world, role="member", scope="write")
    base = f"/api/v1/teams/{world.slug}"
    comment = {"body": "Once"}
    client.post_json(f"{base}/projects/WEB/issues/1/comments", comment, headers={"Idempotency-Key": "c"})
    replay = client.post_json(f"{base}/projects/WEB/issues/1/comments", comment, headers={"Idempotency-Key": "c"})
    # The key's record and the comment (consistent), the issue; then its recording again, which doubles nothing:
    # the event's conditional put refused (1 WCU), its notifications and deliveries keyed by it.
    assert spent(replay) == (5, 2.5, 1.0)
    client.post(f"{base}/inbox/read", headers={"Idempotency-Key": "r"})
    assert spent(client.post(f"{base}/inbox/read", headers={"Idempotency-Key": "r"})) == (1, 1.0, 0.0)
    order = {"product": "seats", "quantity": 1}
    first = client.post_json(f"{base}/orders", order, headers={"Idempotency-Key": "o"})
    assert spent(first)[0] == 3  # the key's record, then atomic numbering: the counter, then one transaction
    again = client.post_json(f"{base}/orders", order, headers={"Idempotency-Key": "o"})
    assert json.loads(again.content) == json.loads(first.content)
    assert spent(again) == (2, 2.0, 0.0)  # the key's record and the order: no number drawn (no gap), nothing written
