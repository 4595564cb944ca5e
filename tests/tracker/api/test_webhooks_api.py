"""Webhooks by API: owners with an admin token register (exactly once per Idempotency-Key, the secret in that answer
only), read, edit on the version (ETag, 304, 412), disable, delete, read the delivery log and send a delivery again
(409 while pending); anybody else is refused, another team's URL is a 404, private addresses and an 11th are not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import webhooks as ddb_webhooks
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World
from tracker.api.routers.webhooks import OWNERS_ONLY
from tracker.models import Membership, Role

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hook"  # the test settings allow 127.0.0.1/32


def body(response: Any) -> Any:
    return json.loads(response.content)


def hooks(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/webhooks{suffix}"


def owner(world: World, api_client: ApiClientFactory) -> ApiClient:
    return api_client(world, role="owner", scope="admin")


def register(client: ApiClient, world: World, key: str = "k1", **fields: Any) -> Any:
    data = {"url": URL, "events": ["issue.created"], **fields}
    return client.post_json(hooks(world), data, headers={"Idempotency-Key": key})


def test_an_owner_registers_a_webhook_once_per_key_and_sees_its_secret_in_that_answer_only(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)

    first = register(client, world, events=["issue.created", "comment.created"], description="CI")
    again = register(client, world, description="CI", events=["issue.created", "comment.created"])  # keys reordered
    listed = client.get(hooks(world))
    one = client.get(hooks(world, f"/{body(first)['id']}"))

    assert first.status_code == 201
    created = body(first)
    assert created["secret"].startswith("whsec_")
    assert created["events"] == ["comment.created", "issue.created"]
    assert first["Location"].endswith(hooks(world, f"/{created['id']}"))
    assert again.status_code == 201
    assert again.content == first.content
    assert [h["id"] for h in body(listed)] == [created["id"]]
    assert "secret" not in body(listed)[0]
    assert "secret" not in body(one)
    assert one["ETag"] == '"1"'
    assert len(ddb_webhooks.endpoints_of(world.slug, consistent=True)) == 1


def test_the_same_key_with_another_body_is_a_422_and_registers_nothing(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    register(client, world)

    other = register(client, world, events=["issue.deleted"])

    assert other.status_code == 422
    assert body(other)["code"] == "idempotency_key_reused"
    assert len(ddb_webhooks.endpoints_of(world.slug, consistent=True)) == 1


@pytest.mark.parametrize(
    ("role", "scope", "status"),
    [("owner", "write", 403), ("owner", "read", 403), ("member", "write", 404), ("viewer", "read", 404)],
)
def test_only_an_owners_admin_token_reaches_webhooks_and_non_owners_get_the_pages_404(
    world: World, api_client: ApiClientFactory, role: str, scope: str, status: int
) -> None:
    """As on the pages, anybody but an owner finds no webhooks (404); an owner's token without `admin` is a 403."""
    theirs = body(register(owner(world, api_client), world, key="owners"))
    client = api_client(world, role=role, scope=scope)

    answers = [
        client.get(hooks(world)),
        register(client, world),
        client.get(hooks(world, f"/{theirs['id']}")),
        client.patch_json(hooks(world, f"/{theirs['id']}"), {"active": False}),
        client.delete(hooks(world, f"/{theirs['id']}")),
        client.get(hooks(world, f"/{theirs['id']}/deliveries")),
    ]

    assert [a.status_code for a in answers] == [status] * len(answers)
    assert {body(a)["code"] for a in answers} == {"not_found" if status == 404 else "forbidden"}
    assert [e.id for e in ddb_webhooks.endpoints_of(world.slug, consistent=True)] == [theirs["id"]]
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True)[0].version == 1


def test_an_owner_lowered_to_member_finds_no_webhooks_with_the_admin_token_made_as_owner(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    Membership.objects.filter(user=world.owner, tenant=world.tenant).update(role=Role.MEMBER)

    assert client.get(hooks(world)).status_code == 404
    assert register(client, world).status_code == 404
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []


def test_another_teams_webhooks_are_a_404(world: World, other_world: World, api_client: ApiClientFactory) -> None:
    theirs = body(register(owner(other_world, api_client), other_world))
    client = owner(world, api_client)

    assert client.get(hooks(other_world)).status_code == 404
    assert client.get(f"/api/v1/teams/{other_world.slug}/webhooks/{theirs['id']}").status_code == 404
    assert client.get(hooks(world, f"/{theirs['id']}")).status_code == 404
    assert client.delete(hooks(world, f"/{theirs['id']}")).status_code == 404


@pytest.mark.parametrize("url", ["http://10.1.2.3/hook", "http://[::1]/hook", "http://169.254.169.254/", "file:///x"])
def test_a_private_or_odd_address_is_refused_and_nothing_is_registered(
    world: World, api_client: ApiClientFactory, url: str
) -> None:
    answer = register(owner(world, api_client), world, url=url)

    assert answer.status_code in (400, 422)
    assert answer["Content-Type"] == "application/problem+json"
    assert ddb_webhooks.endpoints_of(world.slug, consistent=True) == []


def test_an_unknown_event_or_an_unknown_field_is_a_422(world: World, api_client: ApiClientFactory) -> None:
    client = owner(world, api_client)

    assert register(client, world, events=["issue.exploded"]).status_code == 422
    assert register(client, world, "k2", secret="mine").status_code == 422
    assert register(client, world, "k3", events=[]).status_code == 422


def test_a_team_has_at_most_ten_webhooks(world: World, api_client: ApiClientFactory) -> None:
    client = owner(world, api_client)
    for n in range(ddb_webhooks.ENDPOINTS_MAX):
        assert register(client, world, f"k{n}").status_code == 201

    eleventh = register(client, world, "k10")

    assert eleventh.status_code == 400
    assert "at most 10" in body(eleventh)["detail"]


def test_edits_go_on_the_etag_a_stale_one_is_a_412_with_the_current_webhook_and_304_saves_the_body(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    url = hooks(world, f"/{body(register(client, world))['id']}")

    edited = client.patch_json(url, {"events": ["issue.deleted"], "active": False}, headers={"If-Match": '"1"'})
    stale = client.patch_json(url, {"description": "late"}, headers={"If-Match": '"1"'})
    unchanged = client.get(url, headers={"If-None-Match": '"2"'})

    assert edited.status_code == 200
    assert edited["ETag"] == '"2"'
    assert (body(edited)["events"], body(edited)["status"]) == (["issue.deleted"], "disabled")
    assert stale.status_code == 412
    assert body(stale)["current"]["version"] == 2
    assert body(stale)["current"]["description"] == ""
    assert unchanged.status_code == 304


def test_a_deleted_webhook_is_gone_and_a_stale_delete_deletes_nothing(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    url = hooks(world, f"/{body(register(client, world))['id']}")

    assert client.delete(url, headers={"If-Match": '"7"'}).status_code == 412
    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404
    assert client.get(hooks(world)).content == b"[]"


def test_the_delivery_log_pages_newest_first_and_redeliver_is_409_while_pending(
    world: World, api_client: ApiClientFactory
) -> None:
    client = owner(world, api_client)
    hook_id = body(register(client, world))["id"]
    for n in range(1, 4):
        put_delivery(world.slug, hook_id, event_key(n), pending=n == 3, payload='{"type":"issue.created"}')

    first = client.get(hooks(world, f"/{hook_id}/deliveries?limit=2"))
    rest = client.get(hooks(world, f"/{hook_id}/deliveries"), {"limit": 2, "cursor": body(first)["next_cursor"]})
    done, pending = (ddb_webhooks.delivery_id_of(event_key(n)) for n in (1, 3))
    again = client.post(hooks(world, f"/{hook_id}/deliveries/{done}/redeliver"), headers={"Idempotency-Key": "r1"})
    replay = client.post(hooks(world, f"/{hook_id}/deliveries/{done}/redeliver"), headers={"Idempotency-Key": "r1"})
    busy = client.post(hooks(world, f"/{hook_id}/deliveries/{pending}/redeliver"), headers={"Idempotency-Key": "r2"})
    nothing = client.post(
        hooks(world, f"/{hook_id}/deliveries/20990101000000000-00000000/redeliver"), headers={"Idempotency-Key": "r3"}
    )

    assert [d["id"] for d in body(first)["items"]] == [pending, ddb_webhooks.delivery_id_of(event_key(2))]
    assert body(first)["items"][0]["payload"] == {"type": "issue.created"}
    assert 'rel="next"' in first["Link"]
    assert [d["id"] for d in body(rest)["items"]] == [done]
    assert again.status_code == 202
    assert body(again)["status"] == "pending"
    assert replay.status_code == 202
    assert replay.content == again.content
    assert busy.status_code == 409
    assert nothing.status_code == 404
    assert client.get(hooks(world, f"/{hook_id}/deliveries?cursor=junk")).status_code == 400


def test_every_webhook_operation_says_who_may_call_it_in_the_openapi_document(client: Any) -> None:
    document = json.loads(client.get("/api/v1/openapi.json").content)
    operations = [
        operation
        for path, item in document["paths"].items()
        if "/webhooks" in path
        for method, operation in item.items()
        if method in {"get", "post", "patch", "delete"}
    ]

    assert len(operations) == 7
    for operation in operations:
        assert operation["description"].endswith(OWNERS_ONLY), operation["operationId"]
