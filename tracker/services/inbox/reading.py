"""Watching an issue and reading the inbox: watch/unwatch, marking read, the cached unread count."""

from __future__ import annotations

from collections.abc import Iterable

from ddbmodels import inbox
from ddbmodels.issues import IssueItem
from tracker.cache import invalidate
from tracker.models import Membership
from tracker.selectors.inbox import unread_cache_key


def forget_unread(tenant: str, usernames: Iterable[str]) -> None:
    """Drop the cached unread counts (a Redis error is only logged: the cache expires soon anyway)."""
    keys = [unread_cache_key(tenant, name) for name in usernames]
    if keys:
        invalidate(*keys)


# ------------------------------------------------------------------------ watching


def issue_watch(*, membership: Membership, issue: IssueItem) -> None:
    """Watch the issue (every role: watching changes nothing but one's own inbox). Idempotent."""
    inbox.watch(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        username=membership.user.get_username(),
    )


def issue_unwatch(*, membership: Membership, issue: IssueItem) -> None:
    """Stop watching the issue. Idempotent."""
    inbox.unwatch(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        username=membership.user.get_username(),
    )


def inbox_mark_all_read(*, membership: Membership) -> int:
    """Everything in the inbox up to now is read; the count is 0. How many were unread."""
    username = membership.user.get_username()
    marked = inbox.mark_all_read(tenant=membership.tenant.slug, username=username)
    forget_unread(membership.tenant.slug, [username])
    return marked


def notification_open(*, membership: Membership, event_key: str) -> inbox.Notification | None:
    """The notification (None when there is none), marked read if it was unread."""
    tenant, username = membership.tenant.slug, membership.user.get_username()
    note = inbox.notification_get(tenant=tenant, username=username, event_key=event_key)
    if note is not None and note.unread and inbox.mark_read(tenant=tenant, username=username, event_key=event_key):
        forget_unread(tenant, [username])
    return note
