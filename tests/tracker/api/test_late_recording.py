"""A create recorded late (its first answer lost, then its request sent again, R22-1) tells what the request said,
not the item as edited since (R2-4): the issue's ``created`` event has the title it was created with, a comment's
``comment.added`` has the body and mentions it was added with. The webhook payload is the resource as it is when
the delivery is made (README, webhooks)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import comments as ddb_comments
from ddbmodels import events
from ddbmodels import issues as ddb_issues
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import issue_stream
from ddbmodels.events import Kind
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tests.tracker.webhooks.test_deliveries import Queued, queued, register  # noqa: F401

pytestmark = pytest.mark.django_db
URL = "http://127.0.0.1:9/hook"


def lose_first_answer(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
    """The first call's write is done, its answer lost (a 503 to the client); later calls are untouched."""
    real, calls = getattr(module, name), []

    def lossy(**kw: Any) -> Any:
        done = real(**kw)
        calls.append(1)
        if len(calls) == 1:
            raise Unavailable("answer lost")
        return done

    monkeypatch.setattr(module, name, lossy)


def recorded(world: World, kind: Kind, number: int = 1) -> list[events.EventItem]:
    return [e for e in events.stream_events_all(stream=issue_stream(world.slug, "WEB", number)) if e.kind == kind]


def test_a_late_recording_of_an_issue_tells_the_title_it_was_created_with(
    world: World,
    api_client: ApiClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    queued: Queued,  # noqa: F811
) -> None:
    endpoint = register(world, URL)
    client, owner = api_client(world), api_client(world, role="owner")
    url = f"/api/v1/teams/{world.slug}/projects/WEB/issues"
    lose_first_answer(monkeypatch, ddb_issues, "issue_create")
    first = client.post_json(url, {"title": "Typo"}, headers={"Idempotency-Key": "k1"})
    edited = owner.patch_json(f"{url}/1", {"title": "Login fails", "status": "closed"}, headers={"If-Match": '"1"'})
    again = client.post_json(url, {"title": "Typo"}, headers={"Idempotency-Key": "k1"})
    assert (first.status_code, edited.status_code, again.status_code) == (503, 200, 201)
    assert [e.data for e in recorded(world, Kind.ISSUE_CREATED)] == [{"title": "Typo"}]
    [delivery] = ddb_webhooks.delivery_page(world.slug, endpoint.id)[0]
    payload = json.loads(delivery.payload)
    assert payload["type"] == "issue.created"
    # the resource as it is when the delivery is made (said in the README)
    assert (payload["data"]["issue"]["title"], payload["data"]["issue"]["status"]) == ("Login fails", "closed")


def test_a_late_recording_of_a_comment_tells_the_body_and_mentions_it_was_added_with(
    world: World,
    api_client: ApiClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    queued: Queued,  # noqa: F811
) -> None:
    client = api_client(world)
    issues_url = f"/api/v1/teams/{world.slug}/projects/WEB/issues"
    assert client.post_json(issues_url, {"title": "x"}, headers={"Idempotency-Key": "i1"}).status_code == 201
    url = f"{issues_url}/1/comments"
    said = f"Ping @{world.owner.username}: the deploy is red"
    lose_first_answer(monkeypatch, ddb_comments, "comment_add")
    first = client.post_json(url, {"body": said}, headers={"Idempotency-Key": "c1"})
    [comment] = ddb_comments.comment_page(stream=issue_stream(world.slug, "WEB", 1)).comments
    edited = client.patch_json(f"{url}/{comment.comment_id}", {"body": "never mind"}, headers={"If-Match": '"1"'})
    again = client.post_json(url, {"body": said}, headers={"Idempotency-Key": "c1"})
    assert (first.status_code, edited.status_code, again.status_code) == (503, 200, 201)
    [added] = recorded(world, Kind.COMMENT_ADDED)
    assert added.data["excerpt"] == said
    assert added.data["mentions"] == [world.owner.username]
