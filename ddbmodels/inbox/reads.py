"""Reading the inbox: an issue's watchers, a person's unread count, a page of their notifications."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ddbmodels.core import capacity
from ddbmodels.core.keys import parse_time_key
from ddbmodels.inbox.model import (
    HEAD_SK,
    NOTE_MARK,
    WATCHER_MARK,
    InboxItem,
    issue_key,
    note_sk,
    person_key,
)


@dataclass(frozen=True)
class Head:
    """A person's inbox head: the unread count and what "Mark all read" covered."""

    unread: int
    read_through: str | None


@dataclass(frozen=True)
class Notification:
    """One notification as a page shows it."""

    event_key: str  # the event's sort key: the notification's identity
    reference: str
    project_key: str
    number: int
    actor: str
    kind: str
    text: str
    unread: bool

    @property
    def at(self) -> datetime:
        return parse_time_key(self.event_key.partition("#")[0])


@dataclass(frozen=True)
class NotificationPage:
    items: list[Notification]
    older_than: str | None  # the event key to continue below, when there is an older page


@capacity.access_pattern("inbox.watchers")
def watchers(*, tenant: str, project_key: str, number: int, consistent: bool = False) -> list[str]:
    """Query PK = the issue, ``begins_with(sk, "w#")`` — 0.5 RCU per 4 KB (~60 bytes a watcher; 1 RCU if consistent).

    Bounded by the team's size: a person watches an issue at most once.
    """
    items = InboxItem.query(
        issue_key(tenant, project_key, number),
        range_key_condition=InboxItem.sk.startswith(WATCHER_MARK),
        consistent_read=consistent,
    )
    return [item.sk[len(WATCHER_MARK) :] for item in items]


@capacity.access_pattern("inbox.unread")
def head_get(*, tenant: str, username: str) -> Head:
    """GetItem of the inbox head — 0.5 RCU. No head yet: nothing unread."""
    try:
        item = InboxItem.get(person_key(tenant, username), HEAD_SK)
    except InboxItem.DoesNotExist:
        return Head(unread=0, read_through=None)
    return Head(unread=max(int(item.unread or 0), 0), read_through=item.read_through)


@capacity.access_pattern("inbox.page")
def notification_page(
    *, tenant: str, username: str, read_through: str | None, size: int = 25, older_than: str | None = None
) -> NotificationPage:
    """Query PK = the person, ``sk`` below the cursor (or ``begins_with "n#"``), descending, Limit size + 1.

    ≈ 0.5 RCU per 4 KB read (25 notifications of ~250 bytes: about 1 RCU). ``read_through`` is
    the head's (``head_get``): a notification at or below it is read.
    """
    if size < 1:
        raise ValueError(f"size must be ≥ 1, got {size}")
    pk = person_key(tenant, username)
    condition = (
        InboxItem.sk.between(NOTE_MARK, note_sk(older_than)) if older_than else InboxItem.sk.startswith(NOTE_MARK)
    )
    found = list(InboxItem.query(pk, range_key_condition=condition, scan_index_forward=False, limit=size + 2))
    if older_than:
        found = [item for item in found if item.sk != note_sk(older_than)][: size + 1]  # BETWEEN is inclusive
    more = len(found) > size
    items = [notification_from(item, read_through) for item in found[:size]]
    return NotificationPage(items=items, older_than=items[-1].event_key if more and items else None)


@capacity.access_pattern("inbox.note")
def notification_get(*, tenant: str, username: str, event_key: str) -> Notification | None:
    """GetItem of one notification and of the head (its read state) — 1 RCU; None when there is none."""
    try:
        item = InboxItem.get(person_key(tenant, username), note_sk(event_key))
    except InboxItem.DoesNotExist:
        return None
    return notification_from(item, head_get(tenant=tenant, username=username).read_through)


def notification_from(item: InboxItem, read_through: str | None) -> Notification:
    unread = not item.read and (read_through is None or item.sk > read_through)
    return Notification(
        event_key=item.sk[len(NOTE_MARK) :],
        reference=item.reference or "",
        project_key=item.project_key or "",
        number=int(item.number or 0),
        actor=item.actor or "",
        kind=item.kind or "",
        text=item.text or "",
        unread=unread,
    )
