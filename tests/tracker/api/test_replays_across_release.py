"""A create recorded before the creation events had their key, replayed after (R2-3): recorded once, not twice.

Before the release of ``events.creation_key`` a creation's event had a random key. A replay now records again under
the creation key (R22-1), which cannot see the older event: an item created before ``CREATION_KEYS_SINCE`` is not
recorded again by a replay. The first request's old recording is simulated (``activity.record`` without the key),
and the release is moved after the item's creation.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from ddbmodels import events
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.keys import issue_stream, utcnow
from ddbmodels.events import Kind
from ddbmodels.events import model as events_model
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tests.tracker.webhooks.test_deliveries import queued, register  # noqa: F401  (the fixture: queued)
from tracker.services import activity

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hook"


def recorded_as_before_the_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """``activity.record`` as the code before the release called it: every recording under a key of its own."""
    real = activity.record

    def old_record(issue: Any, **kw: Any) -> Any:
        kw.pop("key", None)
        return real(issue, **kw)

    monkeypatch.setattr(activity, "record", old_record)


def released_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release of the creation keys happens now: everything made so far was made before it."""
    monkeypatch.undo()
    monkeypatch.setattr(events_model, "CREATION_KEYS_SINCE", utcnow() + timedelta(seconds=1))


def told(world: World, number: int, kind: str) -> list[events.Event]:
    stream = issue_stream(world.slug, "WEB", number)
    return [e for e in events.stream_events_all(stream=stream) if e.kind == kind]


def test_an_issue_created_before_the_release_and_replayed_after_is_recorded_once(
    world: World,
    api_client: ApiClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    queued: Any,  # noqa: F811
) -> None:
    endpoint = register(world, URL)
    client = api_client(world)
    url = f"/api/v1/teams/{world.slug}/projects/WEB/issues"
    recorded_as_before_the_release(monkeypatch)
    first = client.post_json(url, {"title": "Before"}, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 201, first.content
    released_now(monkeypatch)
    again = client.post_json(url, {"title": "Before"}, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert len(told(world, json.loads(first.content)["number"], Kind.ISSUE_CREATED)) == 1
    assert len(ddb_webhooks.delivery_page(world.slug, endpoint.id)[0]) == 1


def test_a_comment_added_before_the_release_and_replayed_after_is_recorded_once(
    world: World,
    api_client: ApiClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    queued: Any,  # noqa: F811
) -> None:
    client = api_client(world)
    issue = client.post_json(
        f"/api/v1/teams/{world.slug}/projects/WEB/issues", {"title": "A"}, headers={"Idempotency-Key": "i1"}
    )
    number = json.loads(issue.content)["number"]
    url = f"/api/v1/teams/{world.slug}/projects/WEB/issues/{number}/comments"
    recorded_as_before_the_release(monkeypatch)
    first = client.post_json(url, {"body": "Before"}, headers={"Idempotency-Key": "c1"})
    assert first.status_code == 201, first.content
    released_now(monkeypatch)
    again = client.post_json(url, {"body": "Before"}, headers={"Idempotency-Key": "c1"})
    assert again.status_code == 201
    assert again.content == first.content
    assert len(told(world, number, Kind.COMMENT_ADDED)) == 1


def test_an_issue_created_after_the_release_is_still_recorded_by_its_replay(
    world: World, api_client: ApiClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard: a create made after the release whose first request recorded nothing is recorded by its replay."""
    client = api_client(world)
    url = f"/api/v1/teams/{world.slug}/projects/WEB/issues"
    monkeypatch.setattr(activity, "record", lambda issue, **kw: None)  # the first request stopped before recording
    first = client.post_json(url, {"title": "After"}, headers={"Idempotency-Key": "k2"})
    monkeypatch.undo()
    again = client.post_json(url, {"title": "After"}, headers={"Idempotency-Key": "k2"})
    assert again.status_code == 201
    assert len(told(world, json.loads(first.content)["number"], Kind.ISSUE_CREATED)) == 1
