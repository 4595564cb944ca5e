"""The inbox table on DynamoDB Local: watchers, exactly-once delivery, the unread count, reading, retention."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from ddbmodels import inbox
from ddbmodels.core import capacity, connection
from ddbmodels.inbox.model import HEAD_SK, InboxItem, note_sk

pytestmark = pytest.mark.ddblocal

EVENT_1 = "2026-11-22T10:15:30.123Z#0000000a"
EVENT_2 = "2026-11-22T10:16:00.000Z#0000000b"
EVENT_3 = "2026-11-22T10:17:00.000Z#0000000c"


def note(username: str, number: int = 1, actor: str = "alice") -> inbox.Note:
    return inbox.Note(
        username=username,
        project_key="WEB",
        number=number,
        actor=actor,
        kind="issue.edited",
        text=f"{actor} edited WEB-{number}",
    )


def unread(tenant: str, username: str) -> int:
    return inbox.head_get(tenant=tenant, username=username).unread


def page_of(tenant: str, username: str, **kwargs: object) -> inbox.NotificationPage:
    head = inbox.head_get(tenant=tenant, username=username)
    return inbox.notification_page(tenant=tenant, username=username, read_through=head.read_through, **kwargs)  # type: ignore[arg-type]


def test_watch_and_unwatch_are_idempotent_and_the_watchers_are_one_query(tenant: str) -> None:
    issue = {"tenant": tenant, "project_key": "WEB", "number": 7}
    inbox.watch(**issue, username="bob")
    inbox.watch(**issue, username="bob")
    inbox.watch(**issue, username="carol")
    inbox.watchers_add(**issue, usernames=["carol", "dave", "dave"])
    with capacity.measure() as meter:
        assert inbox.watchers(**issue) == ["bob", "carol", "dave"]
    assert meter.requests == 1
    assert meter.rcu == 0.5

    inbox.unwatch(**issue, username="carol")
    inbox.unwatch(**issue, username="carol")
    inbox.unwatch(**issue, username="nobody")
    assert inbox.watchers(**issue, consistent=True) == ["bob", "dave"]
    assert inbox.watchers(tenant=tenant, project_key="WEB", number=8) == []


def test_an_event_delivered_twice_is_one_notification_counted_once(tenant: str) -> None:
    first = inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob"), note("carol")])
    assert sorted(first.delivered) == ["bob", "carol"]
    assert first.transactions == 1

    with capacity.measure() as meter:
        again = inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob"), note("carol")])
    assert again.delivered == []
    assert sorted(again.already) == ["bob", "carol"]
    assert meter.wcu == 0  # a cancelled transaction writes nothing
    for who in ("bob", "carol"):
        assert unread(tenant, who) == 1
        items = page_of(tenant, who).items
        assert [(n.event_key, n.reference, n.actor, n.unread) for n in items] == [(EVENT_1, "WEB-1", "alice", True)]


def test_a_retry_that_finds_some_delivered_delivers_the_rest_once(tenant: str) -> None:
    inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob")])
    result = inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob"), note("carol"), note("dave")])
    assert result.already == ["bob"]
    assert sorted(result.delivered) == ["carol", "dave"]
    assert [unread(tenant, w) for w in ("bob", "carol", "dave")] == [1, 1, 1]


def test_the_unread_count_costs_one_get_and_mark_all_read_resets_it(tenant: str) -> None:
    for key in (EVENT_1, EVENT_2):
        inbox.deliver(tenant=tenant, event_key=key, notes=[note("bob")])
    with capacity.measure() as meter:
        assert unread(tenant, "bob") == 2
    assert (meter.requests, meter.rcu) == (1, 0.5)
    assert unread(tenant, "nobody") == 0

    with capacity.measure() as meter:
        marked = inbox.mark_all_read(tenant=tenant, username="bob", now=datetime(2026, 11, 22, 10, 16, 30, tzinfo=UTC))
    assert (meter.requests, meter.wcu) == (1, 1)
    assert marked == 2  # how many were unread: the same request says it
    assert unread(tenant, "bob") == 0
    assert inbox.mark_all_read(tenant=tenant, username="bob", now=datetime(2026, 11, 22, 10, 16, 30, tzinfo=UTC)) == 0
    assert inbox.mark_all_read(tenant=tenant, username="nobody") == 0  # no head yet
    assert [n.unread for n in page_of(tenant, "bob").items] == [False, False]

    inbox.deliver(tenant=tenant, event_key=EVENT_3, notes=[note("bob")])
    assert unread(tenant, "bob") == 1
    assert [(n.event_key, n.unread) for n in page_of(tenant, "bob").items] == [
        (EVENT_3, True),
        (EVENT_2, False),
        (EVENT_1, False),
    ]


def test_an_event_older_than_mark_all_read_arrives_read_and_uncounted(tenant: str) -> None:
    inbox.deliver(tenant=tenant, event_key=EVENT_3, notes=[note("bob")])
    inbox.mark_all_read(tenant=tenant, username="bob", now=datetime(2026, 11, 22, 10, 18, tzinfo=UTC))
    late = inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob"), note("carol")])
    assert late.late == ["bob"]
    assert late.delivered == ["carol"]
    assert unread(tenant, "bob") == 0
    assert [(n.event_key, n.unread) for n in page_of(tenant, "bob").items] == [(EVENT_3, False), (EVENT_1, False)]


def test_opening_one_marks_it_read_once(tenant: str) -> None:
    for key in (EVENT_1, EVENT_2):
        inbox.deliver(tenant=tenant, event_key=key, notes=[note("bob")])
    assert inbox.mark_read(tenant=tenant, username="bob", event_key=EVENT_1) is True
    assert inbox.mark_read(tenant=tenant, username="bob", event_key=EVENT_1) is False
    assert inbox.mark_read(tenant=tenant, username="bob", event_key=EVENT_3) is False  # none such
    assert unread(tenant, "bob") == 1
    assert [(n.event_key, n.unread) for n in page_of(tenant, "bob").items] == [(EVENT_2, True), (EVENT_1, False)]
    found = inbox.notification_get(tenant=tenant, username="bob", event_key=EVENT_1)
    assert found is not None
    assert found.unread is False
    assert inbox.notification_get(tenant=tenant, username="bob", event_key=EVENT_3) is None


def test_pages_run_newest_first_and_continue_below_the_cursor(tenant: str) -> None:
    keys = [f"2026-11-22T10:{minute:02d}:00.000Z#{minute:08x}" for minute in range(7)]
    for key in keys:
        inbox.deliver(tenant=tenant, event_key=key, notes=[note("bob")])
    first = page_of(tenant, "bob", size=3)
    assert [n.event_key for n in first.items] == keys[::-1][:3]
    assert first.older_than == keys[4]
    second = page_of(tenant, "bob", size=3, older_than=first.older_than)
    assert [n.event_key for n in second.items] == keys[::-1][3:6]
    last = page_of(tenant, "bob", size=3, older_than=second.older_than)
    assert [n.event_key for n in last.items] == keys[:1]
    assert last.older_than is None


def test_a_notification_expires_by_ttl_ninety_days_after_its_event(tenant: str) -> None:
    when = datetime(2026, 11, 22, 10, 15, 30, tzinfo=UTC)
    inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob")], when=when)
    item = InboxItem.get(inbox.person_key(tenant, "bob"), note_sk(EVENT_1), consistent_read=True)
    assert item.expires == when + timedelta(days=90)
    head = InboxItem.get(inbox.person_key(tenant, "bob"), HEAD_SK, consistent_read=True)
    assert head.expires is None  # the head stays: it holds the count
    ttl = connection.client().describe_time_to_live(TableName=InboxItem.Meta.table_name)
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED", "AttributeName": "x"}


def test_the_tenant_index_holds_watchers_and_heads_only(tenant: str) -> None:
    inbox.watch(tenant=tenant, project_key="WEB", number=1, username="bob")
    inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob"), note("carol")])
    keys = sorted((i.pk, i.sk) for i in InboxItem.by_tenant.query(tenant))
    assert keys == [
        (f"{tenant}#WEB#1", "w#bob"),
        (f"{tenant}#bob", "#"),
        (f"{tenant}#carol", "#"),
    ]


def test_keys_that_would_break_the_layout_are_refused(tenant: str) -> None:
    with pytest.raises(ValueError, match="invalid username"):
        inbox.watch(tenant=tenant, project_key="WEB", number=1, username="a#b")
    with pytest.raises(ValueError, match="invalid event key"):
        inbox.deliver(tenant=tenant, event_key="not-a-key", notes=[note("bob")])
    with pytest.raises(ValueError, match="invalid tenant"):
        inbox.head_get(tenant="Bad#Tenant", username="bob")


def test_a_delivery_refused_for_itself_is_raised_at_once_not_retried_as_busy(
    tenant: str, dynamodb_refuses: Callable[..., Any]
) -> None:
    """A cancellation reason outside core.errors' retryable ones (a validation error) is not "try again shortly".

    It used to be tried 8 times and then reported as Unavailable (a 503 that asks to retry what cannot succeed).
    """
    refusal = dynamodb_refuses(
        "TransactWriteItems", code="TransactionCanceledException", status=400, reasons=["ValidationError", "None"]
    )
    with pytest.raises(ClientError, match="TransactionCanceledException"):
        inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob")])
    assert len(refusal.refused) == 1


def test_a_delivery_that_collided_is_tried_again(tenant: str, dynamodb_refuses: Callable[..., Any]) -> None:
    dynamodb_refuses(
        "TransactWriteItems",
        code="TransactionCanceledException",
        status=400,
        reasons=["TransactionConflict", "None"],
        times=1,
    )
    result = inbox.deliver(tenant=tenant, event_key=EVENT_1, notes=[note("bob")])
    assert result.delivered == ["bob"]
    assert result.transactions == 2
