"""The development mail backend: one log line per e-mail, the whole message in a file under ``var/mail``.

Django's console backend prints every message whole on stdout; in the Celery worker, stdout is
redirected to the log, so one notification e-mail was seventeen log lines. This backend logs
one INFO line per message on ``tracker.mail``::

    INFO tracker.mail: e-mail to bob@example.com: alice mentioned you on WEB-12 (var/mail/20261125-173713-1a2b3c4d.eml)

and, when ``EMAIL_FILE_PATH`` is set (``var/mail`` in local settings), writes each message whole
to its own ``.eml`` file there (open it with any mail reader, or ``cat``). Set ``EMAIL_FILE_PATH``
empty to keep only the lines.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend
from django.utils import timezone

log = logging.getLogger("tracker.mail")


class LogEmailBackend(BaseEmailBackend):
    """One INFO line per message (recipients, subject); the full message in ``EMAIL_FILE_PATH`` when set."""

    def __init__(self, *, file_path: str | None = None, fail_silently: bool = False, **kwargs: Any) -> None:
        super().__init__(fail_silently=fail_silently, **kwargs)
        folder = file_path if file_path is not None else getattr(settings, "EMAIL_FILE_PATH", None)
        self.folder = Path(folder) if folder else None

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        sent = 0
        for message in email_messages:
            if not message.recipients():
                continue
            where = self._write(message)
            to = ", ".join(message.recipients())
            if where is None:
                log.info("e-mail to %s: %s", to, message.subject)
            else:
                log.info("e-mail to %s: %s (%s)", to, message.subject, where)
            sent += 1
        return sent

    def _write(self, message: EmailMessage) -> str | None:
        if self.folder is None:
            return None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = f"{timezone.now():%Y%m%d-%H%M%S}-{secrets.token_hex(4)}.eml"
            path = self.folder / name
            path.write_bytes(message.message().as_bytes())
        except OSError:
            if not self.fail_silently:
                raise
            return None
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)
