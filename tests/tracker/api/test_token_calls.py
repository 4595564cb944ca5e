"""Calls with a token, over HTTP: ``GET /api/v1/token`` says who is calling; anything but a live Bearer token is a
401 problem document (junk refused before any SQL query), and a signed-in browser's session is not a token."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.models import ApiToken, Membership
from tracker.services import api_tokens

pytestmark = pytest.mark.django_db
URL = "/api/v1/token"


def _refused(response: Any) -> dict[str, Any]:
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response["WWW-Authenticate"] == "Bearer"
    body: dict[str, Any] = json.loads(response.content)
    assert body["status"] == 401
    return body


def test_the_calling_token_says_whose_it_is_and_what_it_may_do(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="member", scope="write", name="CI", expires_days=7)
    response = client.get(URL)
    assert response.status_code == 200
    body = json.loads(response.content)
    assert {k: body[k] for k in ("hint", "name", "scope", "team", "team_name", "username", "role")} == {
        "hint": client.token.hint,
        "name": "CI",
        "scope": "write",
        "team": world.slug,
        "team_name": world.tenant.name,
        "username": world.member.username,
        "role": "member",
    }
    assert client.secret not in response.content.decode()
    assert body["last_used_at"] is not None
    Membership.objects.filter(pk=client.membership.pk).update(role="viewer")
    assert json.loads(client.get(URL).content)["role"] == "viewer"  # the role as it is now


def test_junk_and_a_bad_checksum_are_401_without_a_query(
    world: World, api_client: ApiClientFactory, django_assert_num_queries: Any
) -> None:
    secret = api_client(world).secret
    bumped = secret[:10] + ("a" if secret[10] != "a" else "b") + secret[11:]
    for header in [f"Bearer {bumped}", "Bearer trk_nothing", f"Basic {secret}", "Bearer", ""]:
        with django_assert_num_queries(0):
            response = Client(headers={"Authorization": header} if header else {}).get(URL)
        _refused(response)


def test_expired_revoked_and_unknown_tokens_are_401(world: World, api_client: ApiClientFactory) -> None:
    expired, revoked = api_client(world), api_client(world)
    ApiToken.objects.filter(pk=expired.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    api_tokens.token_revoke(user=world.member, token_id=revoked.token.pk)
    for client in (expired, revoked):
        _refused(client.get(URL))
    _refused(Client(headers={"Authorization": f"Bearer {api_tokens.new_secret()}"}).get(URL))


def test_a_signed_in_browser_is_not_a_caller(world: World) -> None:
    """ninja's operations are CSRF-exempt: a session cookie must never authorize one (a cross-site POST would)."""
    _refused(world.client_for(world.owner).get(URL))


def test_the_operation_states_its_cost_and_bearer_security(client: Client) -> None:
    document = json.loads(client.get("/api/v1/openapi.json").content)
    operation = document["paths"]["/api/v1/token"]["get"]
    assert operation["operationId"] == "tracker_api_routers_tokens_token_read"
    assert operation["x-dynamodb-cost"]["requests"] == 0
    assert operation["security"] == [{"TokenAuth": []}]
    assert document["components"]["securitySchemes"]["TokenAuth"] == {"type": "http", "scheme": "bearer"}


def test_another_teams_url_is_the_same_404_as_a_team_that_does_not_exist(
    world: World, other_world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world, role="owner", scope="admin")
    assert client.get(f"/api/v1/teams/{world.slug}/projects").status_code == 200
    answers = [client.get(f"/api/v1/teams/{slug}/projects") for slug in (other_world.slug, "no-such-team")]
    bodies = []
    for response in answers:
        assert response.status_code == 404
        assert response["Content-Type"] == "application/problem+json"
        body = json.loads(response.content)
        del body["request_id"]
        bodies.append(body)
    assert bodies[0] == bodies[1]  # nothing tells another team's slug from a free one
    assert other_world.tenant.name not in answers[0].content.decode()


def test_a_write_token_stops_writing_once_its_persons_role_is_lowered(
    world: World, api_client: ApiClientFactory
) -> None:
    from ddbmodels.issues import issue_get

    client = api_client(world, role="member", scope="write")
    url = f"/api/v1/teams/{world.slug}/projects/{world.project_key}/issues"
    made = client.post_json(url, {"title": "Before"}, headers={"Idempotency-Key": "first-key-0001"})
    assert made.status_code == 201
    Membership.objects.filter(pk=client.membership.pk).update(role="viewer")  # the owners made them a viewer
    refused = client.post_json(url, {"title": "After"}, headers={"Idempotency-Key": "second-key-0002"})
    assert refused.status_code == 403
    assert refused["Content-Type"] == "application/problem+json"
    assert json.loads(refused.content)["code"] == "forbidden"
    assert "member role" in json.loads(refused.content)["detail"]
    assert issue_get(tenant=world.slug, project_key=world.project_key, number=2) is None  # nothing written
    assert client.get(f"{url}/1").status_code == 200  # reading still allowed


def test_a_read_token_of_a_member_may_not_write(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="member", scope="read")
    url = f"/api/v1/teams/{world.slug}/projects/{world.project_key}/issues"
    refused = client.post_json(url, {"title": "No"}, headers={"Idempotency-Key": "read-only-key-01"})
    assert refused.status_code == 403
    assert "write scope" in json.loads(refused.content)["detail"]
