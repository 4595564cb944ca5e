"""A recorded change reaches the team's webhook endpoints: put once, signed, retried with one webhook-id, disabled."""

from __future__ import annotations

import base64
import json
import secrets
import socket
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core import mail
from pytest_django.fixtures import SettingsWrapper
from standardwebhooks import Webhook

from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core import capacity
from ddbmodels.events import WEBHOOK_EVENTS, Kind, new_sort_key
from ddbmodels.issues import IssueItem
from ddbmodels.webhooks import DELIVERED, DISABLED, FAILED, PENDING, EndpointItem
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.webhooks.receiver import Reply, receiving
from tests.tracker.webhooks.test_webhook_http import answers_with
from tracker.api.issue_out import issue_summary
from tracker.services import activity
from tracker.services.addresses import address_mark_confirmed
from tracker.services.webhooks import delivery, emit

CREATED = WEBHOOK_EVENTS[Kind.ISSUE_CREATED]
Queued = list[tuple[str, str, str, float | None]]


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> Queued:
    """What would be queued as ``deliver_webhook`` (tenant, endpoint, delivery, countdown); nothing is queued."""
    calls: Queued = []

    def send_later(tenant: str, endpoint_id: str, delivery_id: str, *, countdown: float | None = None) -> bool:
        calls.append((tenant, endpoint_id, delivery_id, countdown))
        return True

    monkeypatch.setattr(emit, "send_later", send_later)
    monkeypatch.setattr(delivery, "send_later", send_later)
    return calls


def register(world: World, url: str, events: tuple[str, ...] = (CREATED,), key: str = "k1") -> EndpointItem:
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    endpoint, created = ddb_webhooks.endpoint_put(
        world.slug,
        ddb_webhooks.endpoint_id_for(key),
        url=url,
        events=list(events),
        secret=secret,
        description="",
        created_by=world.owner.username,
    )
    assert created
    return endpoint


def change(world: World, title: str = "Deploy is red") -> IssueItem:
    """An issue created and recorded as the pages do (``activity.record``: the event, then its webhooks)."""
    issue = new_issue(world, title)
    activity.record(issue, kind=Kind.ISSUE_CREATED, actor=world.member.username, data={"title": title})
    return issue


def the_delivery(endpoint: EndpointItem) -> ddb_webhooks.DeliveryItem:
    items, _ = ddb_webhooks.delivery_page(endpoint.tenant, endpoint.id)
    [found] = items
    fresh = ddb_webhooks.delivery_get(endpoint.tenant, endpoint.id, found.event_key, consistent=True)
    assert fresh is not None
    return fresh


def test_a_change_is_signed_retried_with_one_webhook_id_and_logged_delivered(
    world: World, queued: Queued, settings: SettingsWrapper
) -> None:
    settings.WEBHOOK_RETRY_SCHEDULE = [1, 1, 1]
    with receiving(Reply(500), Reply(500), Reply(204)) as receiver:
        endpoint = register(world, receiver.url())
        issue = change(world)
        [(tenant, endpoint_id, delivery_id, countdown)] = queued
        assert (tenant, endpoint_id, countdown) == (world.slug, endpoint.id, None)
        outcomes = [delivery.attempt(tenant, endpoint_id, delivery_id)]
        for _ in range(2):
            time.sleep(1.3)  # the schedule's 1 s (± 20 %)
            outcomes.append(delivery.attempt(tenant, endpoint_id, delivery_id))
    assert outcomes[0].startswith("failed (500)")
    assert outcomes[-1] == "delivered"
    assert len(receiver.got) == 3
    ids = {got.headers["webhook-id"] for got in receiver.got}
    assert len(ids) == 1
    secret = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True).secret  # type: ignore[union-attr]
    for got in receiver.got:
        payload = Webhook(secret).verify(got.body, got.headers)  # raises when the signature does not hold
        assert payload["type"] == CREATED
    body = json.loads(receiver.got[0].body)
    assert body["data"]["issue"] == issue_summary(issue)  # the API's list row of the issue, from the item in hand
    assert body["data"]["team"] == world.slug
    assert body["data"]["actor"] == world.member.username
    assert body["data"]["changes"] == {"title": "Deploy is red"}
    logged = the_delivery(endpoint)
    assert logged.status == DELIVERED
    assert logged.attempts == 3
    assert [a.code for a in logged.recent] == [500, 500, 204]
    assert logged.message_id == ids.pop()
    assert [countdown for *_, countdown in queued[1:]] == [pytest.approx(1, rel=0.21)] * 2  # short waits: a countdown
    shard = ddb_webhooks.due_key(f"{world.slug}#hooks#{endpoint.id}", "d#" + logged.event_key)
    due = ddb_webhooks.due_page(shard, datetime.now(UTC) + timedelta(days=1))
    assert logged.event_key not in {d.event_key for d in due}  # out of the due index


def test_the_same_change_emitted_twice_is_one_delivery(world: World, queued: Queued) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook")
    issue = new_issue(world)
    key = new_sort_key(datetime.now(UTC))
    for _ in range(2):
        emit.emit_later(issue, kind=Kind.ISSUE_CREATED, actor="ann", data={}, event_key=key)
    assert len(queued) == 1
    assert the_delivery(endpoint).status == PENDING


def test_no_endpoint_subscribed_writes_nothing_and_queues_nothing(world: World, queued: Queued) -> None:
    register(world, "http://127.0.0.1:9/hook", events=(WEBHOOK_EVENTS[Kind.COMMENT_ADDED],))
    issue = new_issue(world)
    emit.emit_later(issue, kind=Kind.ISSUE_CREATED, actor="ann", data={}, event_key=new_sort_key(datetime.now(UTC)))
    other = new_issue(world)
    with capacity.measure() as meter:
        emit.emit_later(other, kind=Kind.ISSUE_CREATED, actor="ann", data={}, event_key=new_sort_key(datetime.now(UTC)))
    assert queued == []
    assert meter.requests == 0  # the team's endpoints come from the cache


def test_a_team_without_endpoints_writes_nothing(make_world: Any, queued: Queued) -> None:
    world = make_world()
    issue = new_issue(world)
    emit.emit_later(issue, kind=Kind.ISSUE_CREATED, actor="ann", data={}, event_key=new_sort_key(datetime.now(UTC)))
    with capacity.measure() as meter:
        emit.emit_later(issue, kind=Kind.ISSUE_EDITED, actor="ann", data={}, event_key=new_sort_key(datetime.now(UTC)))
    assert meter.wcu == 0
    assert meter.requests == 0
    assert queued == []


def test_a_410_disables_the_endpoint_and_mails_the_owners_once(world: World, queued: Queued) -> None:
    world.owner.email = "owner@example.com"
    world.owner.save()
    address_mark_confirmed(user=world.owner)
    with receiving(Reply(410)) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        [(tenant, endpoint_id, delivery_id, _)] = queued
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "gone: endpoint disabled"
    disabled = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True)
    assert disabled is not None
    assert disabled.status == DISABLED
    assert "410" in disabled.disabled_why
    assert the_delivery(endpoint).status == FAILED
    [message] = mail.outbox
    assert message.to == ["owner@example.com"]
    assert receiver.url() in message.body
    change(world, "Another")  # a disabled endpoint gets no new delivery (the cached list was dropped)
    assert len(queued) == 1


def test_an_endpoint_failing_for_the_days_set_is_disabled(
    world: World, queued: Queued, moving_clock: Any, settings: SettingsWrapper
) -> None:
    settings.WEBHOOK_DISABLE_AFTER_DAYS = 3
    world.owner.email = "owner@example.com"
    world.owner.save()
    address_mark_confirmed(user=world.owner)
    start = datetime.now(UTC)
    moving_clock(start)
    with receiving(Reply(500)) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        [(tenant, endpoint_id, delivery_id, _)] = queued
        delivery.attempt(tenant, endpoint_id, delivery_id)
        failing = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True)
        assert failing is not None
        assert failing.failing_since is not None
        assert failing.status == "active"
        moving_clock(start + timedelta(days=3, minutes=1))
        delivery.attempt(tenant, endpoint_id, delivery_id)
    disabled = ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True)
    assert disabled is not None
    assert disabled.status == DISABLED
    assert "3 days" in disabled.disabled_why
    assert len(mail.outbox) == 1


def test_a_success_clears_failing_since(world: World, queued: Queued, settings: SettingsWrapper) -> None:
    settings.WEBHOOK_RETRY_SCHEDULE = [1]
    with receiving(Reply(503, headers={"Retry-After": "1"}), Reply(200)) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        tenant, endpoint_id, delivery_id, _ = queued[0]
        delivery.attempt(tenant, endpoint_id, delivery_id)
        assert ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True).failing_since  # type: ignore[union-attr]
        time.sleep(1.3)
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "delivered"
    assert ddb_webhooks.endpoint_get(world.slug, endpoint.id, consistent=True).failing_since is None  # type: ignore[union-attr]


def test_after_the_last_retry_the_delivery_has_failed(world: World, queued: Queued, settings: SettingsWrapper) -> None:
    settings.WEBHOOK_RETRY_SCHEDULE = [1]
    with receiving(Reply(302, headers={"Location": "http://127.0.0.1:1/x"})) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        tenant, endpoint_id, delivery_id, _ = queued[0]
        assert delivery.attempt(tenant, endpoint_id, delivery_id).startswith("failed (302)")  # a 3xx is no success
        time.sleep(1.3)
        assert delivery.attempt(tenant, endpoint_id, delivery_id).endswith("no more")
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "already failed"
    logged = the_delivery(endpoint)
    assert logged.status == FAILED
    assert logged.attempts == 2
    assert len(receiver.got) == 2


def test_a_429_is_retried_no_sooner_than_its_retry_after(world: World, queued: Queued) -> None:
    with receiving(Reply(429, headers={"Retry-After": "3600"})) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        tenant, endpoint_id, delivery_id, _ = queued[0]
        delivery.attempt(tenant, endpoint_id, delivery_id)
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "not due yet"
    logged = the_delivery(endpoint)
    assert logged.next_attempt is not None
    assert logged.next_attempt - logged.recent[0].at >= timedelta(seconds=3600)
    assert len(queued) == 1  # past 5 minutes the sweep sends it, not a countdown


def test_a_name_now_leading_to_a_private_address_is_not_sent_to(
    world: World, queued: Queued, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("8.8.8.8"))
    endpoint = register(world, "https://hooks.example.com/tracker")
    change(world)
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("10.0.0.5"))
    tenant, endpoint_id, delivery_id, _ = queued[0]
    assert delivery.attempt(tenant, endpoint_id, delivery_id).startswith("failed (hooks.example.com leads to 10.0.0.5")
    logged = the_delivery(endpoint)
    assert logged.status == PENDING
    assert logged.last_code == 0
    assert "10.0.0.5" in logged.last_answer


def test_an_attempt_is_claimed_once(world: World, queued: Queued) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook")
    change(world)
    pending = the_delivery(endpoint)
    lease = datetime.now(UTC) + timedelta(minutes=1)
    claim = {"tenant": world.slug, "endpoint_id": endpoint.id, "event_key": pending.event_key, "lease_until": lease}
    first = ddb_webhooks.delivery_claim(**claim, seen=0)
    assert first is not None
    assert first.attempts == 1
    assert ddb_webhooks.delivery_claim(**claim, seen=0) is None  # a second worker holding the same task
    tenant, endpoint_id, delivery_id, _ = queued[0]
    assert delivery.attempt(tenant, endpoint_id, delivery_id) == "not due yet"  # under the first one's lease


def test_the_sweep_queues_what_is_due_and_nothing_else(world: World, queued: Queued) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook")
    change(world)
    queued.clear()
    mine = (world.slug, endpoint.id, the_delivery(endpoint).id, None)
    delivery.sweep(datetime.now(UTC) - timedelta(minutes=1))  # before it was put: not due (others' may be)
    assert mine not in queued
    delivery.sweep(datetime.now(UTC) + timedelta(seconds=1))  # due, but its own task has 30 s to send it
    assert mine not in queued
    assert delivery.sweep(datetime.now(UTC) + delivery.SWEEP_GRACE + timedelta(seconds=1)) >= 1
    assert mine in queued


def test_a_delivery_of_an_endpoint_disabled_or_deleted_since_is_not_sent(world: World, queued: Queued) -> None:
    with receiving(Reply(204)) as receiver:
        kept = register(world, receiver.url(), key="kept")
        gone = register(world, receiver.url(), key="gone")
        change(world)
        now = datetime.now(UTC)
        ddb_webhooks.endpoint_disable(tenant=world.slug, endpoint_id=kept.id, why="paused by its owner", now=now)
        ddb_webhooks.endpoint_tombstone(world.slug, gone.id, expected_version=1, expires=now + timedelta(days=32))
        outcomes = {
            endpoint_id: delivery.attempt(tenant, endpoint_id, delivery_id)
            for tenant, endpoint_id, delivery_id, _ in queued
        }
    assert outcomes == {
        kept.id: "not sent: the endpoint is disabled",
        gone.id: "not sent: the endpoint was deleted",
    }
    assert receiver.got == []
    for endpoint in (kept, gone):
        logged = the_delivery(endpoint)
        assert logged.status == FAILED  # out of the due index: the sweep does not keep finding it
        assert logged.last_answer.startswith("the endpoint")


def test_a_delivery_sent_again_is_sent_with_the_same_webhook_id(world: World, queued: Queued) -> None:
    with receiving(Reply(204)) as receiver:
        endpoint = register(world, receiver.url())
        change(world)
        tenant, endpoint_id, delivery_id, _ = queued[0]
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "delivered"
        first = the_delivery(endpoint)
        ddb_webhooks.delivery_redeliver(world.slug, endpoint.id, first.event_key, now=datetime.now(UTC), fence="r1")
        assert delivery.attempt(tenant, endpoint_id, delivery_id) == "delivered"
    again = the_delivery(endpoint)
    assert again.attempts == 2
    assert [got.headers["webhook-id"] for got in receiver.got] == [first.message_id] * 2
    assert receiver.got[0].body == receiver.got[1].body
