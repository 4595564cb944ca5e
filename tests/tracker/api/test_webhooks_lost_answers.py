"""Webhooks by API while DynamoDB loses a write's answer (it did the write; botocore sends it again): a registration,
an edit or a delete whose answer was lost still leaves the team's cached list as stored (so the next change is sent to
what is registered now), and a redeliver whose answer was lost is this request's success (202, kept for its key),
never a 409 that looks like a refusal. Review 22: R22-4, R22-2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core import connection
from tests import dynamodb_faults
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World
from tests.tracker.webhooks.test_deliveries import queued  # noqa: F401  (a fixture)
from tracker.services.webhooks import endpoints as hook_services

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hook"  # the test settings allow 127.0.0.1/32


def body(response: Any) -> Any:
    return json.loads(response.content)


def hooks(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/webhooks{suffix}"


def losing(operation: str) -> dynamodb_faults.LostAnswers:
    """The next ``operation``'s answer lost (DynamoDB did it), once."""
    return dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({operation}), rate=1.0, limit=1))


@pytest.fixture(autouse=True)
def _disarmed() -> Iterator[None]:
    yield
    dynamodb_faults.disarm_all()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The deliveries a redeliver queued (nothing is sent: the delivery stays pending)."""
    calls: list[str] = []
    monkeypatch.setattr(hook_services, "send_later", lambda tenant, endpoint_id, delivery_id: calls.append(delivery_id))
    return calls


def delivered(world: World, endpoint_id: str, key: str) -> None:
    """The delivery marked delivered as the sender's finish does (an UpdateItem: its other attributes kept)."""
    connection.client().update_item(
        TableName=connection.table_name("webhooks"),
        Key={
            "pk": {"S": ddb_webhooks.endpoint_key(world.slug, endpoint_id)},
            "s": {"S": ddb_webhooks.delivery_sort(key)},
        },
        UpdateExpression="SET st = :d REMOVE dk",
        ExpressionAttributeValues={":d": {"S": ddb_webhooks.DELIVERED}},
    )


def owner(world: World, api_client: ApiClientFactory) -> ApiClient:
    return api_client(world, role="owner", scope="admin")


def test_a_registration_whose_answer_was_lost_is_listed_and_sent_the_next_change(
    world: World,
    api_client: ApiClientFactory,
    queued: Any,  # noqa: F811
) -> None:
    client = owner(world, api_client)
    assert client.get(hooks(world)).content == b"[]"  # the team's list cached, empty
    lost = losing("PutItem")

    made = client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    dynamodb_faults.disarm_all()
    listed = client.get(hooks(world))
    issue = client.post_json(
        f"/api/v1/teams/{world.slug}/projects/WEB/issues", {"title": "x"}, headers={"Idempotency-Key": "i1"}
    )

    assert lost.lost == 1
    assert made.status_code == 201
    assert [h["id"] for h in body(listed)] == [body(made)["id"]]
    assert issue.status_code == 201
    items, _ = ddb_webhooks.delivery_page(world.slug, body(made)["id"])
    assert [d.type for d in items] == ["issue.created"]


@pytest.mark.parametrize("method", ["patch", "delete"])
def test_an_edit_or_delete_whose_answer_was_lost_leaves_no_stale_list(
    world: World, api_client: ApiClientFactory, method: str
) -> None:
    client = owner(world, api_client)
    made = body(
        client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    )
    assert [h["version"] for h in body(client.get(hooks(world)))] == [1]  # cached at version 1
    lost = losing("UpdateItem")

    if method == "patch":
        client.patch_json(hooks(world, f"/{made['id']}"), {"description": "CI"})
    else:
        client.delete(hooks(world, f"/{made['id']}"))
    dynamodb_faults.disarm_all()
    listed = body(client.get(hooks(world)))

    assert lost.lost == 1
    stored = ddb_webhooks.endpoints_of(world.slug, consistent=True)
    assert [(h["id"], h["version"], h["description"]) for h in listed] == [
        (e.id, e.version, e.description) for e in stored
    ]
    assert [e.description for e in stored] == ([] if method == "delete" else ["CI"])


@pytest.mark.parametrize("if_match", [False, True])
@pytest.mark.parametrize("method", ["patch", "delete"])
def test_an_edit_or_delete_whose_answer_was_lost_answers_its_success_not_a_conflict(
    world: World, api_client: ApiClientFactory, method: str, if_match: bool
) -> None:
    client = owner(world, api_client)
    made = body(
        client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    )
    url, headers = hooks(world, f"/{made['id']}"), {"If-Match": '"1"'} if if_match else {}
    lost = losing("UpdateItem")

    if method == "patch":
        answer = client.patch_json(url, {"description": "CI"}, headers=headers)
    else:
        answer = client.delete(url, headers=headers)
    dynamodb_faults.disarm_all()

    assert lost.lost == 1
    if method == "patch":
        assert answer.status_code == 200, answer.content
        assert (body(answer)["description"], body(answer)["version"], answer["ETag"]) == ("CI", 2, '"2"')
    else:
        assert answer.status_code == 204, answer.content
        assert client.get(url).status_code == 404


def test_an_edit_on_a_version_another_request_moved_on_is_still_a_412(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    made = body(
        client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    )
    url = hooks(world, f"/{made['id']}")
    assert client.patch_json(url, {"description": "first"}, headers={"If-Match": '"1"'}).status_code == 200

    stale = client.patch_json(url, {"description": "second"}, headers={"If-Match": '"1"'})

    assert stale.status_code == 412
    assert body(stale)["current"]["description"] == "first"


def test_a_redeliver_whose_answer_was_lost_is_a_202_and_its_retry_answers_the_same(
    world: World, api_client: ApiClientFactory, sent: list[str]
) -> None:
    client = owner(world, api_client)
    hook_id = body(
        client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    )["id"]
    put_delivery(world.slug, hook_id, event_key(1), pending=False, payload='{"type":"issue.created"}')
    done = ddb_webhooks.delivery_id_of(event_key(1))
    url = hooks(world, f"/{hook_id}/deliveries/{done}/redeliver")
    lost = losing("UpdateItem")

    again = client.post(url, headers={"Idempotency-Key": "r1"})
    dynamodb_faults.disarm_all()
    retry = client.post(url, headers={"Idempotency-Key": "r1"})
    other = client.post(url, headers={"Idempotency-Key": "r2"})  # another request while it is pending: refused

    assert lost.lost == 1
    assert again.status_code == 202, again.content
    assert body(again)["status"] == "pending"
    assert retry.status_code == 202
    assert retry.content == again.content
    assert retry["Idempotent-Replayed"] == "true"
    assert other.status_code == 409
    assert sent == [done]  # queued once


def test_a_redeliver_sent_again_after_its_answer_was_not_kept_does_not_send_twice(
    world: World, api_client: ApiClientFactory, sent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The redeliver ran, then keeping its answer failed (503): the same key again is its own success, whatever
    the delivery's state is now (sent meanwhile), and is not put back to be sent a second time."""
    from tracker.api import idempotency

    client = owner(world, api_client)
    hook_id = body(
        client.post_json(hooks(world), {"url": URL, "events": ["issue.created"]}, headers={"Idempotency-Key": "h1"})
    )["id"]
    put_delivery(world.slug, hook_id, event_key(1), pending=False, payload='{"type":"issue.created"}')
    done = ddb_webhooks.delivery_id_of(event_key(1))
    url = hooks(world, f"/{hook_id}/deliveries/{done}/redeliver")
    real_put = idempotency.answer_put

    def refused(**kwargs: Any) -> bool:
        from ddbmodels.core.errors import Unavailable

        raise Unavailable("DynamoDB did not answer")

    monkeypatch.setattr(idempotency, "answer_put", refused)
    first = client.post(url, headers={"Idempotency-Key": "r1"})
    monkeypatch.setattr(idempotency, "answer_put", real_put)
    delivered(world, hook_id, event_key(1))  # the sender sent it since
    retry = client.post(url, headers={"Idempotency-Key": "r1"})
    replay = client.post(url, headers={"Idempotency-Key": "r1"})

    assert first.status_code == 503
    assert retry.status_code == 202, retry.content
    assert body(retry)["status"] == "delivered"
    assert replay.content == retry.content
    assert sent == [done]  # put back to be sent once, by the first run
