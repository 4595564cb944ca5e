"""A change made on a page reaches a local receiver through a real Celery worker: signed, retried, delivered."""

from __future__ import annotations

import time
from typing import Any

import pytest
from standardwebhooks import Webhook

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.webhooks import DELIVERED
from tests.tracker.conftest import WorkerFactory, World
from tests.tracker.webhooks.receiver import Reply, receiving
from tests.tracker.webhooks.test_deliveries import CREATED, register


@pytest.mark.slow
def test_a_new_issue_is_delivered_by_the_worker_after_a_500(world: World, start_worker: WorkerFactory) -> None:
    with receiving(Reply(500), Reply(204)) as receiver:
        endpoint = register(world, receiver.url(), events=(CREATED,))
        client = world.client_for(world.member)
        assert client.post(world.project_url("new/"), {"title": "Build broke", "priority": "high"}).status_code == 302
        worker = start_worker(WEBHOOK_RETRY_SCHEDULE="1")  # the retry after 1 s (± 20 %): a countdown
        deadline = time.monotonic() + 90
        logged: Any = None
        while time.monotonic() < deadline:
            items, _ = ddb_webhooks.delivery_page(world.slug, endpoint.id)
            logged = items[0] if items else None
            if logged is not None and logged.status == DELIVERED:
                break
            assert worker.poll() is None, "the worker died"
            time.sleep(0.5)
    assert logged is not None
    assert logged.status == DELIVERED
    assert [a.code for a in logged.recent] == [500, 204]
    assert len(receiver.got) == 2
    secret = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True).secret  # type: ignore[union-attr]
    first, second = (Webhook(secret).verify(got.body, got.headers) for got in receiver.got)
    assert first == second
    assert first["data"]["issue"]["title"] == "Build broke"
    assert receiver.got[0].headers["webhook-id"] == receiver.got[1].headers["webhook-id"] == logged.message_id
