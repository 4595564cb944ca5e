"""Watching issues and the inbox: watch/unwatch, the fan-out of an issue's change, marking read.

Every change to an issue is recorded by ``activity.record``, which queues ``fan_out_later``:
a Celery task (``tracker.tasks.fan_out_event``) that adds the watchers the change implies
(reporter and assignee of a new issue, a new assignee, a commenter and the members mentioned),
reads the issue's watchers (one Query), delivers one notification to each watcher but the
actor (exactly once per event, ``ddbmodels.inbox.deliver``) and adds it to the person's mail
window for the issue when they have an address: one e-mail per person per issue per
``NOTIFY_EMAIL_WINDOW_SECONDS`` lists everything the window gathered (``mail_later``,
``send_digest``). Queuing never fails the user's request.

``reading`` (watching, marking read, the unread count), ``delivery`` (the fan-out),
``wording`` (what a notification says), ``digests`` (the e-mails); the names are re-exported here.
"""

from tracker.services.inbox.delivery import (
    DESCRIPTION_EXCERPT_CHARS,
    NOTIFY_KINDS,
    fan_out,
    fan_out_later,
    implied_watchers,
    team_addresses,
)
from tracker.services.inbox.digests import (
    MAIL_OVERDUE_SECONDS,
    digest_body,
    digest_subject,
    mail_later,
    mail_window_seconds,
    send_digest,
)
from tracker.services.inbox.reading import (
    forget_unread,
    inbox_mark_all_read,
    issue_unwatch,
    issue_watch,
    notification_open,
    unread_cache_key,
)
from tracker.services.inbox.wording import EXCERPT_MAX, note_text

__all__ = [
    "DESCRIPTION_EXCERPT_CHARS",
    "EXCERPT_MAX",
    "MAIL_OVERDUE_SECONDS",
    "NOTIFY_KINDS",
    "digest_body",
    "digest_subject",
    "fan_out",
    "fan_out_later",
    "forget_unread",
    "implied_watchers",
    "inbox_mark_all_read",
    "issue_unwatch",
    "issue_watch",
    "mail_later",
    "mail_window_seconds",
    "note_text",
    "notification_open",
    "send_digest",
    "team_addresses",
    "unread_cache_key",
]
