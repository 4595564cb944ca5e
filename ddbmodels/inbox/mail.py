"""Mail windows: at most one e-mail per person per issue per window, listing what the window gathered.

See the model's docstring for the layout (``m#<PROJECT>#<number>`` in the person's collection).
The flow, per person and issue:

1. every notification delivered (newly) calls ``window_add``: the first opens the window
   (``opened``), and its caller schedules the digest for when the window closes;
2. the digest (``window_keys`` then ``window_take``) reads the notifications and claims the
   window atomically: whatever was added before the claim is in this e-mail, whatever comes after
   opens the next window. Claimed once: a second run finds no window with that start.

Works with any number of workers: every decision is one conditional write on one item.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import as_utc, parse_time_key, time_key, utcnow
from ddbmodels.core.tables import error_code
from ddbmodels.inbox.model import EVENT_KEY_RE, NOTE_MARK, InboxItem, mail_sk, note_sk, person_key
from ddbmodels.inbox.reads import Notification, notification_from

WINDOW_EXPIRY = timedelta(days=1)  # TTL of a window whose digest never ran (its notifications stay in the inbox)
CLAIM_STALE = timedelta(minutes=2)  # a claim older than this belongs to a digest that died: another may take it


@dataclass(frozen=True)
class Window:
    """A person's mail window for one issue, as ``window_add`` left it."""

    start: str  # time key of when it opened: the window's identity
    opened: bool  # this call opened it (schedule its digest)
    size: int  # how many notifications it holds now

    @property
    def opened_at(self) -> datetime:
        return parse_time_key(self.start)


def _key(tenant: str, username: str, project_key: str, number: int) -> dict[str, dict[str, str]]:
    return {"pk": {"S": person_key(tenant, username)}, "sk": {"S": mail_sk(project_key, number)}}


@capacity.access_pattern("inbox.mail_window_add")
def window_add(
    *, tenant: str, username: str, project_key: str, number: int, event_key: str, now: datetime | None = None
) -> Window:
    """UpdateItem ``SET ws = if_not_exists(ws, now), wo = if_not_exists(wo, token) ADD nk {key}``, ALL_NEW — 1 WCU.

    Idempotent for one event (a set holds a key once). ``opened``: this call opened the window —
    told by the random token it left in ``wo``, so a write botocore retried after a lost answer
    (which finds the window its first attempt opened) still says it opened it.
    """
    if not EVENT_KEY_RE.match(event_key):
        raise ValueError(f"invalid event key {event_key!r}")
    now = utcnow() if now is None else as_utc(now)
    start = time_key(now)
    token = uuid.uuid4().hex  # the same in botocore's retries of this one request
    answer = connection.client().update_item(
        TableName=InboxItem.Meta.table_name,
        Key=_key(tenant, username, project_key, number),
        UpdateExpression="SET ws = if_not_exists(ws, :start), wo = if_not_exists(wo, :token), "
        "x = if_not_exists(x, :x) ADD nk :key",
        ExpressionAttributeValues={
            ":start": {"S": start},
            ":token": {"S": token},
            ":x": {"N": str(int((now + WINDOW_EXPIRY).timestamp()))},
            ":key": {"SS": [event_key]},
        },
        ReturnValues="ALL_NEW",
        ReturnConsumedCapacity="TOTAL",
    )
    new = answer["Attributes"]
    return Window(
        start=new["ws"]["S"],
        opened=new.get("wo", {}).get("S") == token,
        size=len(new.get("nk", {}).get("SS", [])),
    )


@capacity.access_pattern("inbox.mail_window_get")
def window_keys(*, tenant: str, username: str, project_key: str, number: int, start: str) -> list[str] | None:
    """GetItem of the window, consistent — 1 RCU. Its event keys, oldest first; None when no window has ``start``."""
    answer = connection.client().get_item(
        TableName=InboxItem.Meta.table_name,
        Key=_key(tenant, username, project_key, number),
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    item = answer.get("Item")
    if not item or item.get("ws", {}).get("S") != start:
        return None
    return sorted(item.get("nk", {}).get("SS", []))


@capacity.access_pattern("inbox.mail_window_take")
def window_take(
    *, tenant: str, username: str, project_key: str, number: int, start: str, now: datetime | None = None
) -> list[str] | None:
    """UpdateItem ``SET ct = token`` if ``ws = start`` and unclaimed (or claimed by this call, or stale), ``ALL_NEW``;
    then DeleteItem conditioned on ``ct = token``, ``ALL_OLD`` — 2 WCU. Every key it held; None when taken already.

    The claim: of two digests of one window (a task run twice), one gets the keys, the other None.
    Each step survives a lost answer: botocore's retry of the claim finds its own token; a retried
    delete refused because its first attempt deleted the item returns the keys the claim saw. A
    claim older than ``CLAIM_STALE`` (its digest died between the two steps) may be taken over.
    """
    now = utcnow() if now is None else as_utc(now)
    token = uuid.uuid4().hex
    client = connection.client()
    key = _key(tenant, username, project_key, number)
    try:
        claimed = client.update_item(
            TableName=InboxItem.Meta.table_name,
            Key=key,
            UpdateExpression="SET ct = :token, ca = :now",
            ConditionExpression="ws = :start AND (attribute_not_exists(ct) OR ct = :token OR ca < :stale)",
            ExpressionAttributeValues={
                ":start": {"S": start},
                ":token": {"S": token},
                ":now": {"S": time_key(now)},
                ":stale": {"S": time_key(now - CLAIM_STALE)},
            },
            ReturnValues="ALL_NEW",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return None
        raise
    seen = claimed["Attributes"].get("nk", {}).get("SS", [])
    try:
        answer = client.delete_item(
            TableName=InboxItem.Meta.table_name,
            Key=key,
            ConditionExpression="ct = :token",
            ExpressionAttributeValues={":token": {"S": token}},
            ReturnValues="ALL_OLD",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":  # our own delete, retried after a lost answer
            return sorted(seen)
        raise
    return sorted((answer.get("Attributes") or {}).get("nk", {}).get("SS", []))


@capacity.access_pattern("inbox.mail_notes")
def notifications_of(*, tenant: str, username: str, event_keys: list[str]) -> list[Notification]:
    """The person's notifications with these event keys, oldest first: one Query between the first and the last.

    Query pk = the person, ``sk BETWEEN n#<first> AND n#<last>``, consistent — 1 RCU per 4 KB
    read. It reads every notification of the person in that span (other issues' too) and keeps
    the asked ones: bounded by what one person is told within one mail window (minutes), ~250
    bytes each — a few hundred before a second 4 KB is read.
    """
    if not event_keys:
        return []
    wanted = {note_sk(key) for key in event_keys}
    table = InboxItem.Meta.table_name
    request: dict[str, Any] = {
        "KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last",
        "ExpressionAttributeValues": {
            ":pk": {"S": person_key(tenant, username)},
            ":first": {"S": min(wanted)},
            ":last": {"S": max(wanted)},
        },
        "ConsistentRead": True,
    }
    found: list[Notification] = []
    for page in query_pages(table, **request):
        for raw in page:
            if raw["sk"]["S"] in wanted and raw["sk"]["S"].startswith(NOTE_MARK):
                found.append(notification_from(InboxItem.from_raw_data(raw), None))
    return found
