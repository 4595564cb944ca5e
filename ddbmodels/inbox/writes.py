"""Writing the inbox: watch / unwatch, delivering one event's notifications exactly once, marking read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import batch, capacity, connection, retry
from ddbmodels.core.errors import RETRYABLE_REASONS, Unavailable
from ddbmodels.core.keys import as_utc, time_key, utcnow
from ddbmodels.core.tables import error_code
from ddbmodels.core.threads import map_in_threads
from ddbmodels.inbox.model import (
    HEAD_SK,
    RETENTION,
    TEXT_MAX,
    InboxItem,
    check_tenant,
    check_username,
    issue_key,
    note_sk,
    person_key,
    read_through_key,
    watcher_sk,
)

RECIPIENTS_PER_TRANSACTION = 50  # two actions each, TransactWriteItems takes 100
# A cancelled delivery is tried again when every reason is one of these: fine, already delivered (or its
# head refused the count), or core.errors' retryable reasons (a concurrent transaction, throttling).
_ANSWERED = RETRYABLE_REASONS | {"None", "ConditionalCheckFailed"}
BACKOFF = retry.Backoff(attempts=8, base_s=0.05, cap_s=2.0)


@capacity.access_pattern("inbox.watch")
def watch(*, tenant: str, project_key: str, number: int, username: str) -> None:
    """PutItem of the watcher item — 1 WCU + 1 WCU for its ``by_tenant`` entry (none when it was there already).

    Idempotent: watching twice leaves the same item.
    """
    InboxItem(issue_key(tenant, project_key, number), watcher_sk(username), tenant=tenant).save()


@capacity.access_pattern("inbox.unwatch")
def unwatch(*, tenant: str, project_key: str, number: int, username: str) -> None:
    """DeleteItem of the watcher item — 1 WCU + 1 WCU for its index entry; deleting a missing one is harmless."""
    InboxItem(issue_key(tenant, project_key, number), watcher_sk(username)).delete()


@capacity.access_pattern("inbox.watch_many")
def watchers_add(*, tenant: str, project_key: str, number: int, usernames: Iterable[str]) -> None:
    """BatchWriteItem of watcher Puts, 25 a request — 2 WCU per new watcher; unprocessed ones again after backoff.

    Idempotent like ``watch`` (a Put of the same item again); for the watchers an event implies.
    """
    pk = issue_key(tenant, project_key, number)
    table = InboxItem.Meta.table_name
    batch.batch_write(
        batch.put(table, {"pk": {"S": pk}, "sk": {"S": watcher_sk(name)}, "tn": {"S": tenant}})
        for name in sorted(set(usernames))
    )


@dataclass(frozen=True)
class Note:
    """One notification to deliver: to whom, about which issue, in plain words."""

    username: str
    project_key: str
    number: int
    actor: str
    kind: str
    text: str
    counted: bool = True  # False: delivered already read (its event is older than "Mark all read")


@dataclass
class Delivery:
    """What ``deliver`` did, per recipient: newly delivered (unread, or read when late), or there already."""

    delivered: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    transactions: int = 0


def _note_item(tenant: str, event_key: str, note: Note, expires: int) -> dict[str, Any]:
    item: dict[str, Any] = {
        "pk": {"S": person_key(tenant, note.username)},
        "sk": {"S": note_sk(event_key)},
        "ref": {"S": f"{note.project_key}-{int(note.number)}"},
        "pj": {"S": note.project_key},
        "n": {"N": str(int(note.number))},
        "ac": {"S": note.actor},
        "k": {"S": note.kind},
        "tx": {"S": note.text[:TEXT_MAX]},
        "x": {"N": str(expires)},
    }
    if not note.counted:
        item["rd"] = {"BOOL": True}
    return item


def _actions(tenant: str, event_key: str, notes: Sequence[Note], expires: int) -> list[dict[str, Any]]:
    table = InboxItem.Meta.table_name
    actions: list[dict[str, Any]] = []
    for note in notes:
        actions.append(
            {
                "Put": {
                    "TableName": table,
                    "Item": _note_item(tenant, event_key, note, expires),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
        )
        if note.counted:
            actions.append(
                {
                    "Update": {
                        "TableName": table,
                        "Key": {"pk": {"S": person_key(tenant, note.username)}, "sk": {"S": HEAD_SK}},
                        "UpdateExpression": "SET tn = :tn ADD c :one",
                        "ConditionExpression": "attribute_not_exists(rt) OR rt < :sk",
                        "ExpressionAttributeValues": {
                            ":tn": {"S": tenant},
                            ":one": {"N": "1"},
                            ":sk": {"S": note_sk(event_key)},
                        },
                    }
                }
            )
    return actions


@capacity.access_pattern("inbox.deliver")
def deliver(*, tenant: str, event_key: str, notes: Sequence[Note], when: datetime | None = None) -> Delivery:
    """TransactWriteItems per ≤ 50 recipients: Put notification + UpdateItem head ``ADD c 1`` — 4 WCU a recipient.

    Exactly once per (event, person): the notification's key is the event's key and its Put is
    conditioned on ``attribute_not_exists``, in the same transaction as the count, so delivering
    an event again (a retried task) is cancelled on the notifications already there and counts
    nothing twice. The head's update is conditioned on ``rt < sk``: an event older than the
    person's last "Mark all read" is delivered read and not counted. Cancellations for a
    conflicting transaction or throttling are tried again after the full-jitter backoff.
    ``when`` (the event's time) starts the retention (TTL ``x``).
    """
    check_tenant(tenant)
    for note in notes:
        check_username(note.username)
    expires = int((as_utc(when) if when else utcnow()).timestamp() + RETENTION.total_seconds())
    result = Delivery()
    unique = list({note.username: note for note in notes}.values())
    for start in range(0, len(unique), RECIPIENTS_PER_TRANSACTION):
        _deliver_chunk(tenant, event_key, unique[start : start + RECIPIENTS_PER_TRANSACTION], expires, result)
    return result


def _deliver_chunk(tenant: str, event_key: str, notes: list[Note], expires: int, result: Delivery) -> None:
    client = connection.client()
    todo = notes
    for _ in retry.attempts(BACKOFF):
        if not todo:
            return
        actions = _actions(tenant, event_key, todo, expires)
        result.transactions += 1
        try:
            client.transact_write_items(TransactItems=actions, ReturnConsumedCapacity="TOTAL")
        except ClientError as error:
            if error_code(error) != "TransactionCanceledException":
                raise
            reasons = error.response.get("CancellationReasons", [])
            if any(reason.get("Code", "None") not in _ANSWERED for reason in reasons):
                raise  # refused for the request itself (a validation error): no retry will change that
            todo = _after_cancellation(todo, reasons, result)
            continue
        for note in todo:
            (result.delivered if note.counted else result.late).append(note.username)
        return
    raise Unavailable(f"TransactWriteItems for {len(todo)} notifications kept being cancelled", event=event_key)


def _after_cancellation(notes: list[Note], reasons: list[dict[str, Any]], result: Delivery) -> list[Note]:
    """The notes to try again: those already there are done; those whose head refused go uncounted."""
    codes = [reason.get("Code", "None") for reason in reasons]
    position, again = 0, []
    for note in notes:
        put = codes[position] if position < len(codes) else "None"
        position += 1
        update = "None"
        if note.counted:
            update = codes[position] if position < len(codes) else "None"
            position += 1
        if put == "ConditionalCheckFailed":
            result.already.append(note.username)
        elif update == "ConditionalCheckFailed":
            again.append(replace(note, counted=False))
        else:
            again.append(note)
    return again


@capacity.access_pattern("inbox.mark_all_read")
def mark_all_read(*, tenant: str, username: str, now: datetime | None = None) -> int:
    """UpdateItem of the inbox head: ``c = 0``, ``rt`` = now — 1 WCU (+1 for a new head's index entry).

    Returns how many were unread just before (the head's old ``c``, ``ReturnValues=UPDATED_OLD``:
    the same request, no read), so the page can say how many it marked read.
    """
    now = utcnow() if now is None else as_utc(now)
    answer = connection.client().update_item(
        TableName=InboxItem.Meta.table_name,
        Key={"pk": {"S": person_key(tenant, username)}, "sk": {"S": HEAD_SK}},
        UpdateExpression="SET c = :zero, rt = :rt, tn = :tn",
        ExpressionAttributeValues={
            ":zero": {"N": "0"},
            ":rt": {"S": read_through_key(time_key(now))},
            ":tn": {"S": tenant},
        },
        ReturnValues="UPDATED_OLD",
        ReturnConsumedCapacity="TOTAL",
    )
    before = answer.get("Attributes", {}).get("c", {}).get("N", "0")
    return max(int(before), 0)


@capacity.access_pattern("inbox.mark_read")
def mark_read(*, tenant: str, username: str, event_key: str) -> bool:
    """TransactWriteItems: UpdateItem notification ``rd = true`` + head ``ADD c -1`` — 4 WCU; False when it was read.

    Conditioned on the notification being unread (``rd`` unset) and newer than the head's ``rt``,
    so opening one twice, or after "Mark all read", takes nothing off the count.
    """
    client, table = connection.client(), InboxItem.Meta.table_name
    pk, sk = person_key(tenant, username), note_sk(event_key)
    actions = [
        {
            "Update": {
                "TableName": table,
                "Key": {"pk": {"S": pk}, "sk": {"S": sk}},
                "UpdateExpression": "SET rd = :t",
                "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(rd)",
                "ExpressionAttributeValues": {":t": {"BOOL": True}},
            }
        },
        {
            "Update": {
                "TableName": table,
                "Key": {"pk": {"S": pk}, "sk": {"S": HEAD_SK}},
                "UpdateExpression": "ADD c :minus",
                "ConditionExpression": "c > :zero AND (attribute_not_exists(rt) OR rt < :sk)",
                "ExpressionAttributeValues": {":minus": {"N": "-1"}, ":zero": {"N": "0"}, ":sk": {"S": sk}},
            }
        },
    ]
    try:
        client.transact_write_items(TransactItems=actions, ReturnConsumedCapacity="TOTAL")
    except ClientError as error:
        if error_code(error) != "TransactionCanceledException":
            raise
        return False
    return True


@capacity.access_pattern("inbox.redact")
def notifications_redact(
    *, tenant: str, event_key: str, usernames: Iterable[str], text: str, kind: str | None = None
) -> list[str]:
    """UpdateItem per person: ``SET tx = :text`` (and ``k``) on their notification of ``event_key`` if there is one
    — 1 WCU per person asked, whether or not they had one (a failed condition is charged too).

    For deleting: the words a notification quoted (a deleted comment's, a deleted issue's title) are
    replaced; its read state and the unread count stay as they were. Who had one is not stored, so
    the caller names the people who could have (the team's members and the issue's watchers: at
    most the team), asked on up to 8 threads. Idempotent. Returns the people whose notification was rewritten.
    """
    client, table, sk = connection.client(), InboxItem.Meta.table_name, note_sk(event_key)
    update, values = "SET tx = :tx", {":tx": {"S": text[:TEXT_MAX]}}
    if kind is not None:
        update, values = update + ", k = :k", {**values, ":k": {"S": kind}}

    def one(name: str) -> str | None:
        try:
            client.update_item(
                TableName=table,
                Key={"pk": {"S": person_key(tenant, name)}, "sk": {"S": sk}},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues=values,
                ReturnConsumedCapacity="TOTAL",
            )
        except ClientError as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise
            return None
        return name

    asked = sorted(set(usernames))
    return [name for name in map_in_threads(one, asked, workers=min(len(asked), 8)) if name is not None]
