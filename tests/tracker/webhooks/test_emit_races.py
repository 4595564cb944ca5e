"""The second review's webhook findings (R2-1, R2-2, R2-6): a refill that read the endpoints before a registration
cannot hide it, an invalidation Redis lost is bounded by a minute, a throttle longer than five retries still gets
the delivery put (and one past the hour is logged as lost, by name), and an endpoint registered after a change does
not receive it."""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.events import creation_key
from ddbmodels.webhooks import delivery_id_of
from tests.tracker.conftest import World
from tests.tracker.test_webhook_endpoints import membership
from tests.tracker.webhooks.test_deliveries import Queued, change, queued, register  # noqa: F401
from tracker import optional_redis, tasks
from tracker.selectors import webhooks as selectors
from tracker.services.webhooks import emit
from tracker.services.webhooks import endpoints as service

pytestmark = pytest.mark.django_db
URL = "http://127.0.0.1:9/hook"


def deliveries(endpoint_id: str, world: World) -> list[ddb_webhooks.DeliveryItem]:
    return ddb_webhooks.delivery_page(world.slug, endpoint_id)[0]


def test_a_refill_that_read_before_a_registration_cannot_hide_it(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    queued: Queued,  # noqa: F811
) -> None:
    """R2-1: a reader misses, its Query answers the list before a registration, the registration invalidates, the
    reader stores what it read: the next change must still be delivered to the new endpoint, and it is listed."""
    real = ddb_webhooks.endpoints_of
    made: list[ddb_webhooks.EndpointItem] = []

    def slow_reader(tenant: str, **kw: Any) -> list[ddb_webhooks.EndpointItem]:
        found = real(tenant, **kw)
        if not made:  # another request registers while this Query's answer is on its way back
            monkeypatch.setattr(ddb_webhooks, "endpoints_of", real)  # (its own reads are not slow)
            made.append(
                service.webhook_create(membership=membership(world), url=URL, events=["issue.created"], key="h1")[0]
            )
        return found

    monkeypatch.setattr(ddb_webhooks, "endpoints_of", slow_reader)
    assert selectors.team_endpoints(world.slug) == []  # an emit of another change, say: the list before
    monkeypatch.setattr(ddb_webhooks, "endpoints_of", real)
    [endpoint] = made
    assert [e.id for e in selectors.team_endpoints(world.slug)] == [endpoint.id]
    change(world)
    assert len(deliveries(endpoint.id, world)) == 1


def test_an_invalidation_redis_lost_is_bounded_by_a_minute(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """R2-1: a DEL that never reached Redis leaves the list stale for at most ENDPOINTS_CACHE_SECONDS (60 s)."""
    assert selectors.team_endpoints(world.slug) == []
    monkeypatch.setattr(service, "invalidate", lambda *keys: None)  # the DEL lost
    register(world, URL)
    endpoint = service.webhook_create(membership=membership(world), url=URL, events=["issue.created"], key="k2")[0]
    assert selectors.team_endpoints(world.slug) == []  # stale: the price of a lost DEL
    client = optional_redis.client()
    prefix = cache.make_key(selectors.webhooks_cache_key(world.slug))
    lists = list(client.keys(prefix + ":*"))
    assert lists, "the list is cached under the team's generation"
    assert all(0 < client.ttl(k) <= selectors.ENDPOINTS_CACHE_SECONDS == 60 for k in lists)
    cache.delete(selectors.webhooks_cache_key(world.slug))  # what the next change's DEL does: a new generation
    assert endpoint.id in {e.id for e in selectors.team_endpoints(world.slug)}


def test_a_throttle_longer_than_five_retries_still_puts_the_delivery_waiting_at_most_300_s(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    queued: Queued,  # noqa: F811
) -> None:
    """R2-2: nine refused puts (past the old five retries), then the put is taken: one delivery, sent once."""
    endpoint = register(world, URL)
    real, calls, waits = emit.delivery_put, [], []

    def throttled(**kw: Any) -> bool:
        calls.append(1)
        if len(calls) <= 9:
            raise Unavailable("ProvisionedThroughputExceededException")
        return real(**kw)

    class Longest(random.Random):
        def uniform(self, a: float, b: float) -> float:
            waits.append(b)
            return b

    monkeypatch.setattr(emit, "delivery_put", throttled)
    monkeypatch.setattr(tasks, "_jitter", Longest())
    work = {"tenant": world.slug, "endpoint_ids": [endpoint.id], "type": "issue.created", "body": "{}"}
    work["event_key"] = creation_key(utcnow(), "r2-2")
    result = tasks.emit_webhooks.apply(kwargs=work)
    assert result.state == "SUCCESS"
    assert result.get() == 1
    assert len(calls) == 10
    assert waits == [2, 4, 8, 16, 32, 64, 128, 256, 300]  # full jitter's upper bounds, capped at 300 s
    assert [d.id for d in deliveries(endpoint.id, world)] == [delivery_id_of(work["event_key"])]
    assert len(queued) == 1


def test_a_throttle_past_the_hour_logs_the_lost_delivery_by_name(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """R2-2: a change an hour old whose put is still refused is given up, and the error names what is lost."""
    endpoint = register(world, URL)

    def throttled(**kw: Any) -> bool:
        raise Unavailable("ProvisionedThroughputExceededException")

    monkeypatch.setattr(emit, "delivery_put", throttled)
    event_key = creation_key(utcnow() - timedelta(seconds=emit.EMIT_RETRY_SECONDS + 1), "r2-2")
    work = {"tenant": world.slug, "endpoint_ids": [endpoint.id], "type": "issue.created", "event_key": event_key}
    with caplog.at_level(logging.ERROR, logger=emit.log.name):
        result = tasks.emit_webhooks.apply(kwargs={**work, "body": "{}"})
    assert result.state == "SUCCESS"
    assert result.get() == 0
    [lost] = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    for named in (delivery_id_of(event_key), endpoint.id, world.slug, "LOST"):
        assert named in lost
    assert deliveries(endpoint.id, world) == []


def test_an_endpoint_registered_after_the_change_does_not_receive_it(
    world: World,
    queued: Queued,  # noqa: F811
) -> None:
    """R2-6: the worker reads the list (the request could not): only the endpoints registered by the change's time."""
    before = register(world, URL, key="before")
    event_key = creation_key(utcnow(), "r2-6")
    time.sleep(0.01)
    after = register(world, URL, key="after")
    cache.delete(selectors.webhooks_cache_key(world.slug))
    put = emit.emit_left(tenant=world.slug, endpoint_ids=None, type="issue.created", event_key=event_key, body="{}")
    assert put == 1
    assert len(deliveries(before.id, world)) == 1
    assert deliveries(after.id, world) == []


def test_while_redis_fails_the_list_is_read_from_dynamodb_and_nothing_is_stored(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No generation (Redis paused after a failure): the consistent Query answers, no entry is left to go stale."""
    endpoint = register(world, URL)
    monkeypatch.setattr(optional_redis, "paused", lambda: True)
    assert [e.id for e in selectors.team_endpoints(world.slug)] == [endpoint.id]
    monkeypatch.undo()
    prefix = cache.make_key(selectors.webhooks_cache_key(world.slug))
    assert list(optional_redis.client().keys(prefix + "*")) == []
