"""URLs of the inbox and of watching an issue (included by tracker/urls under /t/<tenant>/)."""

from django.urls import URLPattern, path, register_converter

import tracker.urls.converters  # noqa: F401  (pkey, num)
from tracker.views import inbox


class NotificationKeyConverter:
    """A notification's key, the event's sort key ``2026-11-22T10:15:30.123Z#9f86d081``, with ``~`` for ``#``."""

    regex = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z~[0-9a-f]{8}"

    def to_python(self, value: str) -> str:
        return value.replace("~", "#")

    def to_url(self, value: str) -> str:
        return value.replace("#", "~")


register_converter(NotificationKeyConverter, "notekey")

urlpatterns: list[URLPattern] = [
    path("inbox/", inbox.inbox, name="inbox"),
    path("inbox/read/", inbox.inbox_read_all, name="inbox_read_all"),
    path("inbox/<notekey:note>/", inbox.inbox_open, name="inbox_open"),
    path("p/<pkey:project>/<num:number>/watch/", inbox.issue_watch, name="issue_watch"),
    path("p/<pkey:project>/<num:number>/unwatch/", inbox.issue_unwatch, name="issue_unwatch"),
]
