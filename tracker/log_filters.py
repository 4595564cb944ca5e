"""Logging filters: one line per event, a traceback only for a real error (5xx or an uncaught exception)."""

from __future__ import annotations

import logging


class NoClientErrorTraceback(logging.Filter):
    """Drop the traceback of a 4xx response's log record (a 403, 404 or 400 is an answer, not a bug).

    Django logs ``PermissionDenied``, ``Http404`` and bad requests with ``exc_info``; the message line
    ("Forbidden (Permission denied): /t/acme/…") says all an operator needs.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
        return True
