"""Mail windows on DynamoDB Local: one window per person and issue, claimed once, whatever joins it lands once."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from ddbmodels import inbox
from ddbmodels.core import capacity
from ddbmodels.inbox import mail
from ddbmodels.inbox.model import InboxItem, mail_sk, person_key

pytestmark = pytest.mark.ddblocal

EVENTS = [f"2026-11-22T10:1{i}:00.000Z#0000000{i}" for i in range(5)]
OPENED = datetime(2026, 11, 22, 10, 10, 0, 500000, tzinfo=UTC)


def add(tenant: str, event_key: str, username: str = "bob", number: int = 1) -> mail.Window:
    return mail.window_add(
        tenant=tenant, username=username, project_key="WEB", number=number, event_key=event_key, now=OPENED
    )


def test_the_first_notification_opens_the_window_and_the_next_join_it(tenant: str) -> None:
    with capacity.measure() as meter:
        first = add(tenant, EVENTS[0])
    assert (first.start, first.opened, first.size) == ("2026-11-22T10:10:00.500Z", True, 1)
    assert (meter.requests, meter.wcu) == (1, 1)

    assert [(w.start, w.opened, w.size) for w in (add(tenant, EVENTS[1]), add(tenant, EVENTS[1]))] == [
        (first.start, False, 2),
        (first.start, False, 2),  # the same event again: a set holds it once
    ]
    assert add(tenant, EVENTS[2], username="carol").opened  # each person
    assert add(tenant, EVENTS[2], number=2).opened  # and each issue has its own
    item = InboxItem.get(person_key(tenant, "bob"), mail_sk("WEB", 1))
    assert item.tenant is None  # never in by_tenant: offboarding finds it in the person's collection


def test_a_window_is_claimed_once_with_every_key_and_the_next_notification_opens_another(tenant: str) -> None:
    start = add(tenant, EVENTS[0]).start
    add(tenant, EVENTS[1])
    where = {"tenant": tenant, "username": "bob", "project_key": "WEB", "number": 1}
    assert mail.window_keys(**where, start=start) == EVENTS[:2]
    assert mail.window_keys(**where, start="2026-11-22T10:00:00.000Z") is None  # another window

    with capacity.measure() as meter:
        assert mail.window_take(**where, start=start) == EVENTS[:2]
    assert (meter.requests, meter.wcu) == (2, 2)  # the claim (UpdateItem), then the take (DeleteItem)
    assert mail.window_take(**where, start=start) is None  # a second digest of the same window
    assert mail.window_keys(**where, start=start) is None

    later = add(tenant, EVENTS[2])
    assert later.opened
    assert mail.window_take(**where, start=later.start) == [EVENTS[2]]


def test_an_open_whose_answer_was_lost_and_retried_still_knows_it_opened_the_window(
    tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore sends the same request again after a lost answer: the same token, the window already there
    monkeypatch.setattr(mail.uuid, "uuid4", lambda: uuid.UUID(int=7))
    first, retried = add(tenant, EVENTS[0]), add(tenant, EVENTS[0])
    assert (first.opened, retried.opened, retried.start) == (True, True, first.start)
    monkeypatch.undo()
    assert not add(tenant, EVENTS[1]).opened  # another call joins it


def test_a_take_whose_delete_answer_was_lost_still_returns_the_windows_keys(
    tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = add(tenant, EVENTS[0]).start
    add(tenant, EVENTS[1])
    real = mail.connection.client()

    class LostAnswer:
        """The delete happens, its answer is lost, and botocore's retry is refused by the item's absence."""

        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def delete_item(self, **request: object) -> object:
            real.delete_item(**request)
            return real.delete_item(**request)

    monkeypatch.setattr(mail.connection, "client", lambda: LostAnswer())
    where = {"tenant": tenant, "username": "bob", "project_key": "WEB", "number": 1}
    assert mail.window_take(**where, start=start) == EVENTS[:2]
    assert mail.window_take(**where, start=start) is None  # and it is gone: taken once


def test_a_claim_whose_digest_died_is_taken_over_once_stale(tenant: str) -> None:
    start = add(tenant, EVENTS[0]).start
    where = {"tenant": tenant, "username": "bob", "project_key": "WEB", "number": 1}
    key = {"pk": {"S": person_key(tenant, "bob")}, "sk": {"S": mail_sk("WEB", 1)}}
    claimed_at = "2026-11-22T10:15:00.000Z"
    mail.connection.client().update_item(
        TableName=InboxItem.Meta.table_name,
        Key=key,
        UpdateExpression="SET ct = :t, ca = :at",
        ExpressionAttributeValues={":t": {"S": "a digest that died"}, ":at": {"S": claimed_at}},
    )
    fresh = datetime(2026, 11, 22, 10, 16, tzinfo=UTC)
    assert mail.window_take(**where, start=start, now=fresh) is None  # a minute old: still its
    stale = datetime(2026, 11, 22, 10, 18, tzinfo=UTC)
    assert mail.window_take(**where, start=start, now=stale) == [EVENTS[0]]


def test_the_notifications_of_a_window_are_one_query_of_the_span(tenant: str) -> None:
    for number, key in enumerate(EVENTS, start=1):
        note = inbox.Note(
            username="bob", project_key="WEB", number=number, actor="alice", kind="k", text=f"change {number}"
        )
        inbox.deliver(tenant=tenant, event_key=key, notes=[note])
    with capacity.measure() as meter:
        found = mail.notifications_of(tenant=tenant, username="bob", event_keys=[EVENTS[3], EVENTS[1]])
    assert [(n.event_key, n.text) for n in found] == [(EVENTS[1], "change 2"), (EVENTS[3], "change 4")]
    assert meter.by_operation == {"Query": 1}
    assert meter.rcu == 1  # consistent: 1 RCU per 4 KB (three notifications of ~250 bytes read)
    assert mail.notifications_of(tenant=tenant, username="bob", event_keys=[]) == []
