"""What happened, in plain sentences: an issue's whole history (every period), and a team's day.

History. Events live in one table per period (``ddbmodels.events``), so an issue's history is a
walk from the current period back to the one its issue was created in: newest first, one Query
per period table (``events.stream_events`` with that period only, Limit = what the page still
needs + 1), stopping as soon as a page is full. The cursor is signed and remembers the period
and the sort key of the last event shown, so the next page starts in that period's table right
below it and carries on into older ones. Periods older than the issue cannot hold its events
and are never read. Tables past retention were archived and dropped (``events.archive``): the
walk stops at the oldest table that still exists (ListTables, free, only when the walk goes
beyond the previous period) and the page says "older history is archived" instead of reading
the archive. Cost: 0.5 RCU per started 4 KB per period read (a page of 25 events of ~300 bytes
from one period: 1 RCU, one request; each further period: one more Query).

A team's day: the ``by_day`` index (``events.tenant_day_events``): N Queries, one per write
shard, merged newest first — 0.5 RCU per started 4 KB per shard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings

from ddbmodels import events
from ddbmodels.core import keys
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from ddbmodels.patterns.time_series import PeriodKind, parse_period_id, period_id, period_shift, period_start
from tracker.cursors import INVALID, open_signed, sign
from tracker.exceptions import BadCursor, BadRequest
from tracker.imports.records import SOURCES
from tracker.issue_terms import PRIORITY_LABELS, STATUS_LABELS
from tracker.text_diff import Segment, StoredDiff, stored_segments, word_diff

HISTORY_PAGE_SIZE = 25
DAY_LIMIT = 200  # events shown for one day (the newest)
_SALT = "tracker.history.cursor"
_EVENT_KEY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{1,64}$")  # ≤ 89 characters


# --------------------------------------------------------------------------------- sentences


@dataclass(frozen=True)
class Line:
    """One thing that happened: when, who, what (a sentence without its subject), and where."""

    at: datetime
    actor: str
    text: str
    project: str = ""
    number: int = 0
    url: str = ""  # a page elsewhere the line links to (an imported issue's original)
    changes: StoredDiff | None = None  # what a title or description edit changed, word by word
    diff_key: str = ""  # a description edit whose stored diff is shown: its event's key (its editor or an owner
    # may remove that diff from the history: ``services.history_removal.description_diff_forget``)

    @property
    def segments(self) -> tuple[Segment, ...]:
        return self.changes.segments if self.changes else ()

    @property
    def reference(self) -> str:
        return f"{self.project}-{self.number}" if self.project else ""


def issue_stream(issue: IssueItem) -> str:
    """The issue's event stream (``<tenant>#<PROJECT>#<number>``): its history's partition, its comments' too."""
    return keys.issue_stream(issue.tenant, issue.project_key, int(issue.number))


def _quoted(value: object) -> str:
    return f"“{value}”" if value not in (None, "") else "nothing"


def _plural(word: str, names: list[str]) -> str:
    return f"{word}{'s' if len(names) > 1 else ''} {', '.join(names)}"


Told = tuple[str, StoredDiff | None]  # a sentence, and what it changed word by word (a title or a description)


def _title_changes(before: object, after: object) -> StoredDiff | None:
    """Old and new events keep both titles (≤ 200 characters each): their diff is made as the history is read."""
    if not isinstance(before, str) or not isinstance(after, str):
        return None
    segments = tuple(word_diff(before, after))
    return StoredDiff(segments) if segments else None


DESCRIPTION_EDITED = "edited the description"  # the sentence of a description edit whose diff is shown


def _description_told(data: dict[str, Any]) -> Told:
    """Events since issue 21 keep the description's diff (``text_diff.stored_diff``); older ones only a change.

    A diff its editor or an owner removed (a pasted secret) says who did (``diff_removed_by``).
    """
    if data.get("diff_removed_by"):
        return f"edited the description (the change was removed from the history by {data['diff_removed_by']})", None
    if "diff" not in data:
        return "edited the description (earlier text not kept)", None
    changes = stored_segments(data["diff"])
    if changes is None:
        return "edited the description", None
    if not changes.segments:
        return "edited the description (only spacing or line breaks changed)", None
    return DESCRIPTION_EDITED, changes


def _edited(data: dict[str, Any]) -> list[Told]:
    """The clauses of an ``issue.edited`` event: one per change it records, with the words a title or a
    description edit changed."""
    clauses: list[Told] = []
    changed = data.get("changed") or {}
    if "title" in changed:
        before, after = changed["title"]
        clauses.append((f"changed the title from {_quoted(before)} to {_quoted(after)}", _title_changes(before, after)))
    if "priority" in changed:
        before, after = changed["priority"]
        priority = f"from {PRIORITY_LABELS.get(before, before)} to {PRIORITY_LABELS.get(after, after)}"
        clauses.append((f"changed the priority {priority}", None))
    if "assignee" in changed:
        before, after = changed["assignee"]
        if not before:
            clauses.append((f"assigned it to {after}", None))
        elif not after:
            clauses.append((f"unassigned {before}", None))
        else:
            clauses.append((f"reassigned it from {before} to {after}", None))
    if "milestone" in changed:  # issue 21: names, as they were when it moved
        before, after = changed["milestone"]
        if not before:
            clauses.append((f"put it in milestone {after}", None))
        elif not after:
            clauses.append((f"took it out of milestone {before}", None))
        else:
            clauses.append((f"moved it from milestone {before} to {after}", None))
    if data.get("description"):
        clauses.append(_description_told(data))
    labels = data.get("labels") or {}
    if labels.get("added"):
        clauses.append((f"added {_plural('label', list(labels['added']))}", None))
    if labels.get("removed"):
        clauses.append((f"removed {_plural('label', list(labels['removed']))}", None))
    return clauses or [("saved the issue without changing it", None)]


def sentences(event: events.Event) -> list[str]:
    """What ``event`` did, as sentences that follow the actor's name ("changed the status from Open to Closed")."""
    return [text for text, _ in told(event)]


def told(event: events.Event) -> list[Told]:
    """``sentences``, each with what it changed word by word (a title or a description edit), or None."""
    data, kind = event.data or {}, event.kind
    if kind == Kind.ISSUE_EDITED:
        return _edited(data)
    return [(text, None) for text in _sentences(kind, data)]


def _sentences(kind: str, data: dict[str, Any]) -> list[str]:
    if kind == Kind.ISSUE_CREATED:
        return ["created the issue"]
    if kind == Kind.ISSUE_STATUS:
        before, after = str(data.get("from")), str(data.get("to"))
        return [f"changed the status from {STATUS_LABELS.get(before, before)} to {STATUS_LABELS.get(after, after)}"]
    if kind == Kind.ISSUE_DELETED:
        return ["deleted the issue"]
    if kind == Kind.ATTACHMENT_ADDED:
        return [f"attached {data.get('filename', 'a file')}"]
    if kind == Kind.ATTACHMENT_REMOVED:
        return [f"detached {data.get('filename', 'a file')}"]
    if kind == Kind.COMMENT_ADDED:
        return [f"commented (deleted by {data['deleted_by']})" if data.get("deleted_by") else "commented"]
    if kind == Kind.COMMENT_EDITED:
        return [f"edited a comment (deleted by {data['deleted_by']})" if data.get("deleted_by") else "edited a comment"]
    if kind == Kind.COMMENT_DELETED:
        return ["deleted a comment"]
    if kind == Kind.ISSUE_LABELS_RENAMED:  # the labels page's rename or delete (tracker.services.labels)
        old, new = data.get("from", "a label"), data.get("to")
        return [f"renamed the team's label {old} to {new}" if new else f"deleted the team's label {old}"]
    return ["changed the issue"]


def lines(found: Iterable[events.Event]) -> list[Line]:
    """Each event as one line per sentence, in the order given, with the issue it is about."""
    result: list[Line] = []
    for event in found:
        try:
            _, project, number = keys.parse_issue_stream(event.stream)
        except ValueError:
            project, number = "", 0
        stored = event.kind == Kind.ISSUE_EDITED and "diff" in (event.data or {})
        for text, changes in told(event):
            key = event.t if stored and changes is not None and text == DESCRIPTION_EDITED else ""
            result.append(Line(event.at, event.actor, text, project, number, changes=changes, diff_key=key))
    return result


def description_edit(*, issue: IssueItem, key: str) -> events.Event | None:
    """The issue's description edit of event key ``key`` (BadRequest when it is no key), None when there is none.

    One consistent GetItem of the event in its period's table (``events.event_get``) — 1 RCU per started 4 KB.
    A key is an event's (``events.new_sort_key``: its time, ``#`` and a short hex suffix) of a time an events
    table can hold; anything else (a year before 1000, a 13th month, a key longer than DynamoDB takes) is a 400,
    asked of nobody.
    """
    kind = _kind()
    try:
        if not _EVENT_KEY_RE.fullmatch(key):
            raise ValueError(key)
        events.event_table(key, kind)  # its period's table: a time no period has is a ValueError
    except ValueError as error:
        raise BadRequest("That is not a change of this issue's history.") from error
    event = events.event_get(stream=issue_stream(issue), t=key, period=kind)
    if event is None or event.kind != Kind.ISSUE_EDITED or not (event.data or {}).get("description"):
        return None
    return event


def imported_line(issue: IssueItem) -> Line | None:
    """The first line of an imported issue's history: from where, by whom, when, and when it was created there."""
    origin = issue.imported
    if origin is None:
        return None
    source = SOURCES.get(origin.source, origin.source)
    where = f"{source} ({origin.ref})" if origin.ref else source
    text = (
        f"imported the issue from {where} on {origin.at:%-d %b %Y}; "
        f"created there {issue.created_at:%-d %b %Y} by {issue.reporter}"
    )
    return Line(origin.at, origin.by, text, issue.project_key, int(issue.number), url=origin.url or "")


# --------------------------------------------------------------------------------- history


@dataclass(frozen=True)
class HistoryPage:
    lines: list[Line]
    older_cursor: str | None  # the next page (older changes)
    is_continuation: bool  # this is not the newest page
    archived: bool  # the issue is older than the oldest table left: older history is archived
    requests: int  # Queries made (one per period table read)


def _kind() -> PeriodKind:
    kind: PeriodKind = settings.EVENTS_PERIOD
    return kind


def _encode(stream: str, period: str, key: str) -> str:
    return sign(_SALT, listing=stream, p=period, t=key)


def _decode(token: str, stream: str) -> tuple[str, str]:
    data = open_signed(token, kind=_SALT, listing=stream)
    period, key = data.get("p"), data.get("t")
    try:
        if not isinstance(period, str) or not isinstance(key, str) or not _EVENT_KEY_RE.match(key):
            raise ValueError
        if parse_period_id(period)[0] != _kind():
            raise ValueError
    except ValueError as error:
        raise BadCursor(INVALID) from error
    return period, key


def _live_periods(kind: PeriodKind) -> set[str]:
    """ListTables (free): the period ids of ``kind`` whose events tables exist now."""
    return {table.period for table in events.list_event_tables() if table.kind == kind}


def issue_history_page(
    *, issue: IssueItem, cursor: str | None = None, size: int | None = None, now: datetime | None = None
) -> HistoryPage:
    """One page of the issue's events (``size``, default ``HISTORY_PAGE_SIZE``), newest first, every period.

    Raises BadCursor for a cursor that was tampered with, or is another issue's.
    """
    size = size or HISTORY_PAGE_SIZE
    kind, stream = _kind(), issue_stream(issue)
    now = now or utcnow()
    # No older table can hold the issue's events: it was created then (or, imported, it came here then).
    first = period_start(kind, issue.imported.at if issue.imported is not None else issue.created_at)
    if cursor:
        period, before = _decode(cursor, stream)
        start: datetime | None = parse_period_id(period)[1]
    else:
        start, before = period_start(kind, now), None
    live: set[str] | None = None
    archived = False
    found: list[events.Event] = []
    requests = 0
    at = start
    while at is not None and at >= first and len(found) <= size:
        pid = period_id(kind, at)
        if at < period_shift(kind, now, -1):  # beyond current and previous: does the table still exist?
            live = _live_periods(kind) if live is None else live
            oldest = min((parse_period_id(p)[1] for p in live), default=None)
            if oldest is None or at < oldest:
                archived = True  # everything older went to the archive
                break
        if live is None or pid in live:
            requests += 1
            found += events.stream_events(
                stream=stream, periods=[pid], limit=size + 1 - len(found), before=before, period=kind, now=now
            )
        before = None  # only the cursor's own period continues below a key
        at = period_shift(kind, at, -1)
    more = len(found) > size
    shown = found[:size]
    older = _encode(stream, period_id(kind, shown[-1].at), shown[-1].t) if more and shown else None
    told = lines(shown)
    origin = imported_line(issue) if not more else None  # the oldest line: on the last page, from the issue itself
    return HistoryPage(
        lines=[*told, origin] if origin else told,
        older_cursor=older,
        is_continuation=bool(cursor),
        archived=archived,
        requests=requests,
    )


# --------------------------------------------------------------------------------- a team's day


@dataclass(frozen=True)
class DayPage:
    day: date
    lines: list[Line]
    previous_day: date
    next_day: date | None  # None for today (or a later day): nothing newer to see
    truncated: bool  # more events than shown (the newest DAY_LIMIT are)
    archived: bool  # the day's period is past retention: its table was (or is about to be) archived


def tenant_day_page(*, tenant: str, day: date, limit: int = DAY_LIMIT, now: datetime | None = None) -> DayPage:
    """The team's events of ``day`` (UTC), newest first: N Queries of ``by_day`` merged — 0.5 RCU per 4 KB each."""
    now = now or utcnow()
    kind = _kind()
    found = events.tenant_day_events(
        tenant=tenant,
        day=day,
        shards=settings.EVENTS_SHARDS,
        period=kind,
        limit=limit + 1,
        newest_first=True,
    )
    day_start = datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)
    archived = period_start(kind, day_start) < period_shift(kind, now, -settings.EVENTS_RETENTION)
    today = now.date()
    return DayPage(
        day=day,
        lines=lines(found[:limit]),
        previous_day=day - timedelta(days=1),
        next_day=day + timedelta(days=1) if day < today else None,
        truncated=len(found) > limit,
        archived=archived and not found,
    )
