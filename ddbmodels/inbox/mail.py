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

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import as_utc, parse_time_key, time_key, utcnow
from ddbmodels.core.tables import error_code
from ddbmodels.inbox.model import EVENT_KEY_RE, NOTE_MARK, InboxItem, mail_sk, note_sk, person_key
from ddbmodels.inbox.reads import Notification, _notification

WINDOW_EXPIRY = timedelta(days=1)  # TTL of a window whose digest never ran (its notifications stay in the inbox)


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
    """UpdateItem ``SET ws = if_not_exists(ws, now) ADD nk {event_key}``, ``ALL_OLD`` — 1 WCU.

    Idempotent for one event (a set holds a key once). ``opened``: there was no window before.
    """
    if not EVENT_KEY_RE.match(event_key):
        raise ValueError(f"invalid event key {event_key!r}")
    now = utcnow() if now is None else as_utc(now)
    start = time_key(now)
    answer = connection.client().update_item(
        TableName=InboxItem.Meta.table_name,
        Key=_key(tenant, username, project_key, number),
        UpdateExpression="SET ws = if_not_exists(ws, :start), x = if_not_exists(x, :x) ADD nk :key",
        ExpressionAttributeValues={
            ":start": {"S": start},
            ":x": {"N": str(int((now + WINDOW_EXPIRY).timestamp()))},
            ":key": {"SS": [event_key]},
        },
        ReturnValues="ALL_OLD",
        ReturnConsumedCapacity="TOTAL",
    )
    old = answer.get("Attributes") or {}
    if "ws" not in old:
        return Window(start=start, opened=True, size=1)
    keys = set(old.get("nk", {}).get("SS", [])) | {event_key}
    return Window(start=old["ws"]["S"], opened=False, size=len(keys))


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
def window_take(*, tenant: str, username: str, project_key: str, number: int, start: str) -> list[str] | None:
    """DeleteItem conditioned on ``ws = start``, ``ALL_OLD`` — 1 WCU. Every key it held; None when taken already.

    The claim: of two digests of one window (a task run twice), one gets the keys, the other None.
    """
    try:
        answer = connection.client().delete_item(
            TableName=InboxItem.Meta.table_name,
            Key=_key(tenant, username, project_key, number),
            ConditionExpression="ws = :start",
            ExpressionAttributeValues={":start": {"S": start}},
            ReturnValues="ALL_OLD",
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return None
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
                found.append(_notification(InboxItem.from_raw_data(raw), None))
    return found
