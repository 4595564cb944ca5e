"""Endpoints on DynamoDB Local: registered once per request key, listed live in one Query, edited and deleted on
their version; the delivery log newest first a page at a time, and a delivery sent again unless it is pending."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ddbmodels import webhooks
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition, NotFound
from ddbmodels.core.keys import utcnow
from tests.ddbmodels.webhooks.helpers import event_key, put_delivery

pytestmark = pytest.mark.ddblocal


def register(tenant: str, key: str = "k1", **fields: object) -> webhooks.EndpointItem:
    endpoint, created = webhooks.endpoint_put(
        tenant,
        webhooks.endpoint_id_for(key),
        url=str(fields.pop("url", "https://example.com/hook")),
        events=list(fields.pop("events", ["issue.created"])),  # type: ignore[call-overload]
        secret="whsec_c2VjcmV0",
        description=str(fields.pop("description", "")),
        created_by="alice",
    )
    assert created
    return endpoint


def test_a_request_sent_twice_registers_one_endpoint_for_one_write(tenant: str) -> None:
    with capacity.measure() as meter:
        first = register(tenant, events=["issue.created", "comment.created", "issue.created"])
    again, created = webhooks.endpoint_put(
        tenant,
        first.id,
        url="https://other.example/",
        events=["issue.deleted"],
        secret="whsec_b3RoZXI=",
        description="",
        created_by="bob",
    )

    assert meter.requests == 1
    assert meter.wcu == 1
    assert not created
    assert again == first
    assert first.events == ("comment.created", "issue.created")
    assert (first.status, first.version, first.secret) == (webhooks.ACTIVE, 1, "whsec_c2VjcmV0")


def test_the_team_list_is_one_query_of_its_live_endpoints_oldest_first_without_tombstones(tenant: str) -> None:
    first = register(tenant, "k1")
    second = register(tenant, "k2")
    gone = register(tenant, "k3")
    webhooks.endpoint_tombstone(tenant, gone.id, expected_version=1, expires=utcnow() + timedelta(days=32))
    register(f"{tenant}-other", "k4")

    with capacity.measure() as meter:
        listed = webhooks.endpoints_of(tenant)

    assert [e.id for e in listed] == [first.id, second.id]
    assert meter.requests == 1
    assert meter.rcu == 0.5


def test_an_edit_on_the_version_read_changes_it_and_a_stale_one_changes_nothing(tenant: str) -> None:
    endpoint = register(tenant, description="CI")

    edited = webhooks.endpoint_update(
        tenant, endpoint.id, expected_version=1, url="https://example.com/v2", events=["issue.deleted"], description=""
    )
    with pytest.raises(ChangedSinceRead) as stale:
        webhooks.endpoint_update(tenant, endpoint.id, expected_version=1, description="late")

    assert (edited.url, edited.events, edited.description, edited.version) == (
        "https://example.com/v2",
        ("issue.deleted",),
        "",
        2,
    )
    assert stale.value.current == "2"
    assert webhooks.endpoint_get(tenant, endpoint.id, consistent=True) == edited


def test_disabling_keeps_why_and_enabling_clears_it(tenant: str) -> None:
    endpoint = register(tenant)

    off = webhooks.endpoint_update(
        tenant, endpoint.id, expected_version=1, active=False, disabled_why="The receiver answered 410 Gone."
    )
    on = webhooks.endpoint_update(tenant, endpoint.id, expected_version=2, active=True)

    assert (off.status, off.disabled_why, off.active) == (webhooks.DISABLED, "The receiver answered 410 Gone.", False)
    assert (on.status, on.disabled_why, on.active) == (webhooks.ACTIVE, "", True)


def test_a_deleted_endpoint_is_a_tombstone_without_its_secret_that_a_request_sent_again_finds(tenant: str) -> None:
    endpoint = register(tenant)

    gone = webhooks.endpoint_tombstone(tenant, endpoint.id, expected_version=1, expires=utcnow() + timedelta(days=32))
    again, created = webhooks.endpoint_put(
        tenant,
        endpoint.id,
        url="https://x.example/",
        events=["issue.created"],
        secret="s",
        description="",
        created_by="a",
    )

    assert (gone.status, gone.secret, gone.url, gone.events) == (webhooks.DELETED, "", "", ())
    assert webhooks.endpoint_get(tenant, endpoint.id) is None
    assert webhooks.endpoint_get(tenant, endpoint.id, consistent=True, tombstone=True) == gone
    assert not created
    assert again.status == webhooks.DELETED
    with pytest.raises(ChangedSinceRead) as twice:
        webhooks.endpoint_tombstone(tenant, endpoint.id, expected_version=2, expires=utcnow())
    assert twice.value.current is None
    with pytest.raises(ChangedSinceRead):
        webhooks.endpoint_update(tenant, endpoint.id, expected_version=2, description="back?")


def test_the_log_is_newest_first_a_page_at_a_time_each_page_one_query(tenant: str) -> None:
    endpoint = register(tenant)
    for n in range(1, 6):
        put_delivery(tenant, endpoint.id, event_key(n), pending=n == 5)
    put_delivery(tenant, webhooks.endpoint_id_for("other"), event_key(9), pending=False)

    with capacity.measure() as meter:
        first, after = webhooks.delivery_page(tenant, endpoint.id, size=3)
    second, end = webhooks.delivery_page(tenant, endpoint.id, before=after, size=3)

    assert [d.event_key for d in first] == [event_key(5), event_key(4), event_key(3)]
    assert [d.event_key for d in second] == [event_key(2), event_key(1)]
    assert end is None
    assert first[0].status == webhooks.PENDING
    assert first[1].recent[0].code == 204
    assert meter.requests == 1
    assert meter.rcu == 0.5


def test_redeliver_puts_a_finished_delivery_back_due_now_and_refuses_a_pending_or_missing_one(tenant: str) -> None:
    endpoint = register(tenant)
    put_delivery(tenant, endpoint.id, event_key(1), pending=False)
    put_delivery(tenant, endpoint.id, event_key(2), pending=True)
    now = utcnow()

    with capacity.measure() as meter:
        again = webhooks.delivery_redeliver(tenant, endpoint.id, event_key(1), now=now, fence="r1")

    assert (again.status, again.attempts, again.next_attempt) == (
        webhooks.PENDING,
        1,
        now.replace(microsecond=now.microsecond // 1000 * 1000),
    )
    assert meter.wcu == 2  # the item and its due entry
    with pytest.raises(InvalidTransition):
        webhooks.delivery_redeliver(tenant, endpoint.id, event_key(1), now=now, fence="r2")
    with pytest.raises(InvalidTransition):
        webhooks.delivery_redeliver(tenant, endpoint.id, event_key(2), now=now, fence="r2")
    with pytest.raises(NotFound):
        webhooks.delivery_redeliver(tenant, endpoint.id, event_key(3), now=now, fence="r2")
    assert webhooks.delivery_get(tenant, endpoint.id, event_key(3)) is None


def test_redeliver_by_the_same_request_again_is_its_own_success_and_puts_nothing_back(tenant: str) -> None:
    """The answer lost (botocore or the client sends the same request again): the delivery as it is now, once."""
    endpoint = register(tenant)
    put_delivery(tenant, endpoint.id, event_key(1), pending=False)
    first = webhooks.delivery_redeliver(tenant, endpoint.id, event_key(1), now=utcnow(), fence="r1")

    again = webhooks.delivery_redeliver(
        tenant, endpoint.id, event_key(1), now=utcnow() + timedelta(minutes=5), fence="r1"
    )

    assert again == first  # nothing written: the same next attempt
    with pytest.raises(InvalidTransition):
        webhooks.delivery_redeliver(tenant, endpoint.id, event_key(1), now=utcnow(), fence="r2")
