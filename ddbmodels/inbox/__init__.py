"""The inbox table: issues' watchers and each person's notifications with an unread count."""

from ddbmodels.inbox.mail import Window, notifications_of, window_add, window_keys, window_take
from ddbmodels.inbox.model import BY_TENANT_INDEX, RETENTION, InboxItem, issue_key, parse_stream, person_key
from ddbmodels.inbox.reads import (
    Head,
    Notification,
    NotificationPage,
    head_get,
    notification_get,
    notification_page,
    watchers,
)
from ddbmodels.inbox.team import TEAM_DATA
from ddbmodels.inbox.writes import (
    Delivery,
    Note,
    deliver,
    mark_all_read,
    mark_read,
    notifications_redact,
    unwatch,
    watch,
    watchers_add,
)

__all__ = [
    "BY_TENANT_INDEX",
    "RETENTION",
    "TEAM_DATA",
    "Delivery",
    "Head",
    "InboxItem",
    "Note",
    "Notification",
    "NotificationPage",
    "Window",
    "deliver",
    "head_get",
    "issue_key",
    "mark_all_read",
    "mark_read",
    "notification_get",
    "notification_page",
    "notifications_of",
    "notifications_redact",
    "parse_stream",
    "person_key",
    "unwatch",
    "watch",
    "watchers",
    "watchers_add",
    "window_add",
    "window_keys",
    "window_take",
]
