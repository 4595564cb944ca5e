"""Emitting never fails the change it follows, and a delivery's body stays within what the table keeps."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from ddbmodels.core.errors import Unavailable
from ddbmodels.events import WEBHOOK_EVENTS, Kind, new_sort_key
from ddbmodels.webhooks import PAYLOAD_MAX, PENDING
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.webhooks.test_deliveries import CREATED, change, register, the_delivery
from tracker import enqueue
from tracker.services import activity
from tracker.services.webhooks import emit
from tracker.services.webhooks.payload import payload_text


def test_a_table_that_refuses_the_delivery_does_not_fail_the_change(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    register(world, "http://127.0.0.1:9/hook")

    def refused(**kwargs: Any) -> bool:
        raise Unavailable("throttled")

    monkeypatch.setattr(emit, "delivery_put", refused)
    issue = new_issue(world)
    assert activity.record(issue, kind=Kind.ISSUE_CREATED, actor="ann", data={"title": "t"}) is not None
    assert "could not emit the webhooks" in caplog.text


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
