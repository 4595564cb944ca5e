"""Telling a team's traces from everyone else's in text: a key, a job name, a task's arguments, a file path.

Every key Tracker writes for a team holds its slug as a whole word: ``<team>#…`` (DynamoDB keys, cached
unread counts), ``…:<team>:…`` (cache keys, job names), ``attachments/<team>/…`` (files), ``'<team>'`` (a
task's arguments). ``Team.names`` finds the slug only where no other slug character touches it, so
``acme`` never matches ``acme-2`` or ``big-acme``. A generic word used as a slug may also match text that
is not the team's: what is removed then is a statistic or a task's record, never a team's data.

The offboarding job's own records (its job item, run record, capacity label, lock and Celery result)
name the slug and nothing else, like the ``RetiredSlug`` row that keeps the slug from being reused: they
stay (``Team.is_offboarding_job``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SLUG_CHARS = "a-z0-9-"
REMOVED = "(removed: an offboarded team's)"


@dataclass(frozen=True)
class Team:
    """A team being offboarded: its slug, and the name of its own offboarding job (which stays)."""

    slug: str
    offboarding_job: str = ""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        word = rf"(?<![{SLUG_CHARS}]){re.escape(self.slug)}(?![{SLUG_CHARS}])"
        object.__setattr__(self, "pattern", re.compile(word))

    def names(self, text: object) -> bool:
        """True when ``text`` (a str or bytes; anything else by its str) holds the slug as a whole word."""
        if text is None:
            return False
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return bool(self.pattern.search(str(text)))

    def is_offboarding_job(self, job: object) -> bool:
        return bool(self.offboarding_job) and job == self.offboarding_job

    def redact(self, value: Any) -> tuple[Any, int]:
        """``value`` (JSON) without what names the team: list entries dropped, other strings replaced, dict
        keys dropped; (the new value, how many were taken out)."""
        if isinstance(value, str):
            return (REMOVED, 1) if self.names(value) else (value, 0)
        if isinstance(value, list):
            kept, removed = [], 0
            for entry in value:
                if isinstance(entry, str) and self.names(entry):
                    removed += 1
                    continue
                new, n = self.redact(entry)
                kept.append(new)
                removed += n
            return kept, removed
        if isinstance(value, dict):
            out, removed = {}, 0
            for key, entry in value.items():
                if self.names(key):
                    removed += 1
                    continue
                new, n = self.redact(entry)
                out[key] = new
                removed += n
            return out, removed
        return value, 0
