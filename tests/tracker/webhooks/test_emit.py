"""Emitting never fails the change it follows, and a delivery's body stays within what the table keeps."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from celery.exceptions import Retry

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.events import WEBHOOK_EVENTS, Kind, new_sort_key
from ddbmodels.webhooks import PAYLOAD_MAX, PENDING, delivery_id_of
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.webhooks.test_deliveries import CREATED, change, register, the_delivery
from tracker import enqueue
from tracker.services import activity
from tracker.services.webhooks import emit
from tracker.services.webhooks.payload import payload_text


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """The deliveries whose sending the emit queued (tenant, endpoint, delivery); nothing is queued."""
    calls: list[tuple[str, str, str]] = []

    def send_later(tenant: str, endpoint_id: str, delivery_id: str, **options: Any) -> bool:
        calls.append((tenant, endpoint_id, delivery_id))
        return True

    monkeypatch.setattr(emit, "send_later", send_later)
    return calls


def test_a_delivery_the_table_refuses_is_put_by_a_worker_retrying_and_the_change_stands(
    world: World, monkeypatch: pytest.MonkeyPatch, sent: list[tuple[str, str, str]]
) -> None:
    """A throttled put (past botocore's retries) is not lost: the task puts it, retried while still refused."""
    from tracker import tasks

    endpoint = register(world, "http://127.0.0.1:9/hook")
    handed: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.emit_webhooks, "apply_async", lambda *a, kwargs, **o: handed.append(kwargs))
    real = emit.delivery_put

    def refused(**kwargs: Any) -> bool:
        raise Unavailable("throttled")

    monkeypatch.setattr(emit, "delivery_put", refused)
    issue = new_issue(world)
    assert activity.record(issue, kind=Kind.ISSUE_CREATED, actor="ann", data={"title": "t"}) is not None
    [work] = handed
    assert work["endpoint_ids"] == [endpoint.id]
    assert ddb_webhooks.delivery_page(world.slug, endpoint.id)[0] == []  # not put yet
    with pytest.raises(Retry):  # still throttled: the task is retried (its backoff)
        tasks.emit_webhooks.apply(kwargs=work, throw=True)
    monkeypatch.setattr(emit, "delivery_put", real)
    assert tasks.emit_webhooks.apply(kwargs=work, throw=True).get() == 1
    assert the_delivery(endpoint).status == PENDING
    assert sent == [(world.slug, endpoint.id, delivery_id_of(work["event_key"]))]  # and its sending queued
    assert tasks.emit_webhooks.apply(kwargs=work, throw=True).get() == 1  # again: still one delivery, sent once
    assert len(sent) == 1


def test_an_endpoint_list_dynamodb_does_not_answer_is_read_by_the_worker(
    world: World, monkeypatch: pytest.MonkeyPatch, sent: list[tuple[str, str, str]]
) -> None:
    from tracker import tasks

    endpoint = register(world, "http://127.0.0.1:9/hook")
    handed: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.emit_webhooks, "apply_async", lambda *a, kwargs, **o: handed.append(kwargs))

    def down(tenant: str) -> list[Any]:
        raise Unavailable("not answering")

    monkeypatch.setattr(emit, "team_endpoints", down)
    activity.record(new_issue(world), kind=Kind.ISSUE_CREATED, actor="ann", data={"title": "t"})
    monkeypatch.undo()
    [work] = handed
    assert work["endpoint_ids"] is None
    assert tasks.emit_webhooks.apply(kwargs=work, throw=True).get() == 1
    assert the_delivery(endpoint).status == PENDING


def test_a_broker_that_does_not_answer_leaves_the_delivery_due_for_the_sweep(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Down:
        def apply_async(self, **kwargs: Any) -> None:
            raise OSError("connection refused")

    monkeypatch.setattr(enqueue, "task", lambda name: Down())
    endpoint = register(world, "http://127.0.0.1:9/hook")
    change(world)
    assert the_delivery(endpoint).status == PENDING  # put all the same; the due sweep sends it


def test_a_body_too_large_leaves_the_changes_out_then_shortens_the_title(world: World) -> None:
    issue = new_issue(world, "é" * 200, labels=[f"étiquette-{n}-" + "ü" * 20 for n in range(10)])
    data = {"changed": {"title": ["ø" * 200, "é" * 200]}, "labels": {"added": issue.labels, "removed": []}}
    key = new_sort_key(datetime.now(UTC))
    text = payload_text(issue, type=WEBHOOK_EVENTS[Kind.ISSUE_EDITED], actor="ann", data=data, event_key=key)
    assert len(text.encode()) <= PAYLOAD_MAX
    body = json.loads(text)
    assert body["data"]["changes_omitted"] is True
    assert body["data"]["changes"] == {}
    assert body["timestamp"] == key.partition("#")[0]
    small = payload_text(issue, type=CREATED, actor="ann", data={"title": "x", "diff": "-a +b"}, event_key=key)
    assert json.loads(small)["data"]["changes"] == {"title": "x"}  # the history's word diff is never sent


def test_the_cached_endpoints_are_refilled_by_a_consistent_read(world: World) -> None:
    """Right after a registration (its invalidation) the next change refills the list: an eventually consistent
    Query could miss the new endpoint and keep it out of the cache for minutes."""
    from django.core.cache import cache

    from ddbmodels.core import capacity
    from tracker.selectors.webhooks import team_endpoints, webhooks_cache_key

    register(world, "http://127.0.0.1:9/hook")
    cache.delete(webhooks_cache_key(world.slug))
    with capacity.measure() as meter:
        assert len(team_endpoints(world.slug)) == 1
    assert meter.rcu == 1.0  # consistent: 1 RCU (eventually consistent would be 0.5)
