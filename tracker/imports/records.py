"""The neutral record every import format becomes, and how it is made fit for an issue."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ddbmodels.comments import BODY_MAX
from ddbmodels.core.errors import InvalidInput
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import DESCRIPTION_MAX, LABEL_MAX, LABELS_MAX, PRIORITIES, STATUSES, TITLE_MAX, one_line

FORMATS = ("github", "jira", "csv")
SOURCES = {"github": "GitHub", "jira": "Jira", "csv": "CSV"}  # each format as people name it
LABEL_UNFIT = re.compile(r"[^\w.-]+")
WEB_URL = re.compile(r"^https?://[^\s\"'<>]{1,500}$")  # an export's link is kept only as a web page's address
REF_MAX = 200
NUMBER_MAX = 10**15 - 1  # an issue's URL names at most 15 digits (tracker.urls.converters.NumberConverter)
AUTHOR_MAX = 150
USERNAME_SHAPED = re.compile(r"^[\w.@+-]*$")  # Django's usernames: a name of this shape could be an account here
IMPORTED = " (imported)"


def imported_author(name: str) -> str:
    """A comment author from an export as stored here: never the name of an account of this site.

    A name that could be a username (``bob``) becomes ``bob (imported)``; a name no username can be
    (with a space: ``Bob Smith``, ``bob (imported)``) is kept. So nobody here is the author of a
    comment written elsewhere (only its author may edit or delete a comment).
    """
    name = " ".join(name.split())[:AUTHOR_MAX]
    if name in ("", "imported"):
        return "someone" + IMPORTED
    return name + IMPORTED if USERNAME_SHAPED.match(name) else name


@dataclass(frozen=True)
class Note:
    """One comment of an imported issue."""

    author: str
    body: str
    created: datetime


@dataclass
class Record:
    """One issue as an export describes it; people are kept as the text the export names them by."""

    number: int
    title: str
    body: str = ""
    state: str = "open"  # one of ddbmodels.issues.STATUSES
    priority: str = "medium"  # one of ddbmodels.issues.PRIORITIES
    labels: list[str] = field(default_factory=list)
    assignee: str | None = None
    reporter: str = "imported"
    created: datetime = field(default_factory=lambda: utcnow())  # looked up at each call: a pinned clock pins it
    closed: datetime | None = None
    comments: list[Note] = field(default_factory=list)
    # Where it came from (not its content: two exports of the same issue are equal records).
    ref: str | None = field(default=None, compare=False)  # its name there (``octo/repo#12``, ``WEB-12``)
    url: str | None = field(default=None, compare=False)  # its page there (http or https only)

    def fit(self) -> Record:
        """The record within the issue's limits: title and body cut, labels made label-shaped, at most 10."""
        if self.number < 1:
            raise InvalidInput("issue numbers start at 1", number=self.number)
        if self.number > NUMBER_MAX:
            raise InvalidInput(f"issue {str(self.number)[:20]}…: issue numbers have at most 15 digits", number=-1)
        for place, note in enumerate(self.comments, start=1):
            if len(note.body) > BODY_MAX:
                raise InvalidInput(
                    f"issue {self.number}: comment {place} holds {len(note.body):,} characters; "
                    f"a comment holds at most {BODY_MAX:,}",
                    number=self.number,
                )
        self.comments = [Note(author=imported_author(n.author), body=n.body, created=n.created) for n in self.comments]
        if self.state not in STATUSES:
            raise InvalidInput("unknown state", state=self.state)
        if self.priority not in PRIORITIES:
            raise InvalidInput("unknown priority", priority=self.priority)
        labels = sorted({LABEL_UNFIT.sub("-", label.strip().lower()).strip("-")[:LABEL_MAX] for label in self.labels})
        self.title = (one_line(self.title).strip() or f"Issue {self.number}")[:TITLE_MAX]
        self.body = self.body[:DESCRIPTION_MAX]
        self.labels = [label for label in labels if label][:LABELS_MAX]
        self.assignee = (self.assignee or "").strip() or None
        self.reporter = self.reporter.strip() or "imported"
        self.ref = (self.ref or "").strip()[:REF_MAX] or None
        self.url = self.url.strip() if self.url and WEB_URL.match(self.url.strip()) else None
        return self


def when(text: str | None) -> datetime | None:
    """An ISO-8601 time (``2026-11-02T09:30:00Z``, with or without offset) as aware UTC; None when empty."""
    if not text:
        return None
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def at(text: str | None) -> datetime:
    """``when`` for a time that must be there (ValueError when it is missing)."""
    value = when(text)
    if value is None:
        raise ValueError("a time is missing")
    return value


def parse(fmt: str, path: Path) -> list[Record]:
    """The issues of one export file, in number order; InvalidInput for an unknown format or a bad file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror}", path=str(path)) from error
    return parse_text(fmt, text, name=str(path))


def parse_text(fmt: str, text: str, *, name: str) -> list[Record]:
    """``parse`` of an export already read (an upload); ``name`` says which file in the errors."""
    from tracker.imports import github, jira, plain_csv

    parsers: dict[str, Callable[[str], list[Record]]] = {
        "github": github.parse,
        "jira": jira.parse,
        "csv": plain_csv.parse,
    }
    if fmt not in parsers:
        raise InvalidInput("unknown format", format=fmt)
    try:
        records = [record.fit() for record in parsers[fmt](text)]
    except RecursionError as error:
        raise InvalidInput(f"{name} is nested too deeply to be a {fmt} export", path=name) from error
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError) as error:
        raise InvalidInput(f"{name} is not a {fmt} export: {error!r}"[:500], path=name) from error
    numbers = [r.number for r in records]
    if len(numbers) != len(set(numbers)):
        raise InvalidInput(f"{name} names an issue number twice", path=name)
    return sorted(records, key=lambda r: r.number)
