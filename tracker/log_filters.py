"""Logging filters: one line per event, a traceback only for a real error (5xx or an uncaught exception)."""

from __future__ import annotations

import logging
import re


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


class ServerRequestLines(logging.Filter):
    """The development server's request lines (``django.server``): one line per request, none for static files.

    - A 4xx or 5xx answer is already one ``django.request`` line (Django logs every response of
      400 and above there, with the reason: "Not Found: /t/acme/…"); runserver's own line for the
      same request is dropped, so the log says it once.
    - A request for a static file (``STATIC_URL``) that succeeded is a DEBUG line: shown only when
      ``LOG_LEVEL=DEBUG``. A page is one request line, not one plus its stylesheets and scripts.
      A static file that is missing keeps its WARNING line: runserver serves static files around
      Django's handler, so no ``django.request`` line says it.

    Records without a request line's arguments (runserver's "You're accessing the development
    server over HTTPS" error) pass unchanged.
    """

    def __init__(self, static_prefix: str | None = None) -> None:
        super().__init__()
        self._static_prefix = static_prefix

    def static_prefix(self) -> str:
        if self._static_prefix is None:
            from django.conf import settings

            url = str(settings.STATIC_URL or "/static/")
            self._static_prefix = url if url.startswith("/") else f"/{url}"
        return self._static_prefix

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (isinstance(args, tuple) and len(args) == 3 and str(args[1]).isdigit()):
            return True
        status = int(str(args[1]))
        _, _, rest = str(args[0]).partition(" ")  # "GET /static/tracker/site.css HTTP/1.1"
        if not rest.startswith(self.static_prefix()):
            return status < 400  # 400 and above: django.request said it, with the reason
        if status >= 400:
            return True  # static files are served around Django's handler: this is the only line
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


class RedactInvitationTokens(logging.Filter):
    """Take an invitation's token out of a log line (``/team/join/<token>/`` → ``/team/join/…/``).

    New links carry the token in the URL's fragment, which no server sees; links made before carry it
    in the path, and the development server's request line ("GET /t/acme/team/join/<token>/ …") would
    write it to the log. The console handler's filter: no line the app writes holds a usable link.
    An e-mail confirmation link made before its token moved to the fragment
    (``/accounts/email/confirm/?token=<token>``) is redacted the same way (``?token=…``).
    """

    _TOKEN = re.compile(r"(/team/join/)[^/\s\"'?#]+")
    _CONFIRM = re.compile(r"(/accounts/email/confirm/\?(?:[^\s\"'#]*&)?token=)[^&\s\"'#]+")

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "/team/join/" in message or "/accounts/email/confirm/" in message:
            message = self._CONFIRM.sub(r"\1…", self._TOKEN.sub(r"\1…", message))
            record.msg, record.args = message, ()
        return True
