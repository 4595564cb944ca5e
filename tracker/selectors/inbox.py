"""The inbox as pages see it: the unread count (cached), a page of notifications, an issue's watch state."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from ddbmodels import inbox
from ddbmodels.issues import IssueItem
from tracker.cache import cached
from tracker.cursors import INVALID, open_signed, sign
from tracker.exceptions import BadCursor
from tracker.models import Membership

log = logging.getLogger(__name__)
PAGE_SIZE = 25
_SALT = "tracker.inbox.cursor"


def unread_cache_key(tenant: str, username: str) -> str:
    """The cache key of a person's unread count (read here, dropped by ``services.inbox.forget_unread``)."""
    return f"inbox-unread:{tenant}#{username}"


@dataclass(frozen=True)
class InboxPage:
    notifications: list[inbox.Notification]
    unread: int
    next_cursor: str | None


@dataclass(frozen=True)
class WatchState:
    watching: bool
    watchers: int


def unread_count(*, tenant: str, username: str, cached_only: bool = False) -> int | None:
    """The unread count: from the cache, else one GetItem (0.5 RCU), cached; None when unknown.

    ``cached_only``: never ask DynamoDB (None on a miss). A Redis failure is a miss, a DynamoDB
    failure None: the header then shows no count.
    """

    def load() -> int | None:
        if cached_only:
            return None
        try:
            return inbox.head_get(tenant=tenant, username=username).unread
        except Exception:  # noqa: BLE001  (the header shows no count rather than failing the page)
            log.warning("could not read the unread count of %s in %s", username, tenant, exc_info=True)
            return None

    return cached(
        unread_cache_key(tenant, username),
        settings.INBOX_COUNT_CACHE_SECONDS,
        load,
        dump=lambda count: count,
        restore=lambda raw: int(raw) if isinstance(raw, int) else None,
        keep=lambda count: count is not None,
    )


def inbox_page(*, membership: Membership, cursor: str | None) -> InboxPage:
    """One page of the person's notifications, newest first (GetItem head + one Query: ≈ 1.5 RCU).

    The cursor is signed and bound to this person's inbox in this team: BadCursor otherwise.
    """
    tenant, username = membership.tenant.slug, membership.user.get_username()
    listing = f"{tenant}#{username}"
    older_than = None
    if cursor:
        data = open_signed(cursor, kind=_SALT, listing=listing)
        older_than = data.get("k")
        if not isinstance(older_than, str):
            raise BadCursor(INVALID)
    head = inbox.head_get(tenant=tenant, username=username)
    try:
        page = inbox.notification_page(
            tenant=tenant, username=username, read_through=head.read_through, size=PAGE_SIZE, older_than=older_than
        )
    except ValueError as error:  # a well-signed cursor that is not a notification key (never made by us)
        raise BadCursor(INVALID) from error
    next_cursor = sign(_SALT, listing=listing, k=page.older_than) if page.older_than else None
    return InboxPage(notifications=page.items, unread=head.unread, next_cursor=next_cursor)


def notification_find(*, membership: Membership, event_key: str) -> inbox.Notification | None:
    """The person's notification as it is (GetItem of it and of the head: 1 RCU), nothing marked; None when none."""
    return inbox.notification_get(
        tenant=membership.tenant.slug, username=membership.user.get_username(), event_key=event_key
    )


def watch_state(*, issue: IssueItem, username: str) -> WatchState:
    """Whether ``username`` watches the issue, and how many do: one Query (≤ 0.5 RCU for a team under ~60)."""
    names = inbox.watchers(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))
    return WatchState(watching=username in names, watchers=len(names))
