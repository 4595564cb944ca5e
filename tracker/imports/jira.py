"""Jira's CSV export ("Export → CSV (all fields)"): one row per issue, repeated columns for labels and comments.

Read: ``Issue key`` (``WEB-12`` → number 12), ``Summary``, ``Description``, ``Status``, ``Priority``,
``Assignee``, ``Reporter``, ``Created``, ``Resolved``, every ``Labels`` column, every
``Comment`` column (``<date>;<author>;<text>``). Dates as Jira writes them
(``02/Nov/26 9:30 AM``) or ISO-8601. Statuses: To Do/Open/Backlog → open, In Progress/In
Review → in_progress, Resolved/Done → resolved, Closed → closed. Priorities: Highest/Blocker →
urgent, High/Critical/Major → high, Medium → medium, Low/Lowest/Minor/Trivial → low.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from ddbmodels.core.keys import utcnow
from tracker.imports.cells import read_cell
from tracker.imports.records import Note, Record, when

HEADER = ["Issue key", "Summary", "Description", "Status", "Priority", "Assignee", "Reporter", "Created", "Resolved"]
STATUS_MAP = {
    "to do": "open",
    "open": "open",
    "backlog": "open",
    "reopened": "open",
    "in progress": "in_progress",
    "in review": "in_progress",
    "resolved": "resolved",
    "done": "resolved",
    "closed": "closed",
}
PRIORITY_MAP = {
    "highest": "urgent",
    "blocker": "urgent",
    "high": "high",
    "critical": "high",
    "major": "high",
    "medium": "medium",
    "low": "low",
    "lowest": "low",
    "minor": "low",
    "trivial": "low",
}
JIRA_TIME = "%d/%b/%y %I:%M %p"


def jira_time(text: str | None) -> datetime | None:
    if not text or not text.strip():
        return None
    try:
        return datetime.strptime(text.strip(), JIRA_TIME).replace(tzinfo=UTC)
    except ValueError:
        return when(text)


def parse(text: str) -> list[Record]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    header = [name.strip() for name in rows[0]]
    first = {name: header.index(name) for name in HEADER if name in header}
    if "Issue key" not in first or "Summary" not in first:
        raise ValueError("no 'Issue key' or 'Summary' column")
    label_at = [i for i, name in enumerate(header) if name == "Labels"]
    comment_at = [i for i, name in enumerate(header) if name == "Comment"]
    records = []
    for written in rows[1:]:
        row = [read_cell(cell) for cell in written]  # an export's ' before a formula-like cell taken off
        if not any(cell.strip() for cell in row):
            continue

        def cell(name: str, row: list[str] = row) -> str:
            at = first.get(name)
            return row[at].strip() if at is not None and at < len(row) else ""

        notes = []
        for i in comment_at:
            if i < len(row) and row[i].strip():
                stamp, author, body = row[i].split(";", 2)
                notes.append(Note(author=author.strip(), body=body, created=jira_time(stamp)))  # type: ignore[arg-type]
        records.append(
            Record(
                number=int(cell("Issue key").rsplit("-", 1)[1]),
                title=cell("Summary"),
                body=row[first["Description"]] if "Description" in first else "",
                state=STATUS_MAP.get(cell("Status").lower(), "open"),
                priority=PRIORITY_MAP.get(cell("Priority").lower(), "medium"),
                labels=[row[i] for i in label_at if i < len(row) and row[i].strip()],
                assignee=cell("Assignee") or None,
                reporter=cell("Reporter") or "imported",
                created=jira_time(cell("Created")) or utcnow(),
                closed=jira_time(cell("Resolved")),
                comments=notes,
                ref=cell("Issue key"),
            )
        )
    return records


JIRA_STATUS = {"open": "To Do", "in_progress": "In Progress", "resolved": "Resolved", "closed": "Closed"}
JIRA_PRIORITY = {"urgent": "Highest", "high": "High", "medium": "Medium", "low": "Low"}


def header(project_key: str, labels: int, comments: int) -> list[str]:
    return [*HEADER, *["Labels"] * labels, *["Comment"] * comments]


def row(project_key: str, record: Record, labels: int, comments: int) -> list[str]:
    """One CSV row for ``record`` under ``header(project_key, labels, comments)``."""

    def stamp(moment: datetime | None) -> str:
        return moment.strftime(JIRA_TIME) if moment else ""

    tags = record.labels + [""] * (labels - len(record.labels))
    notes = [f"{stamp(n.created)};{n.author};{n.body}" for n in record.comments]
    return [
        f"{project_key}-{record.number}",
        record.title,
        record.body,
        JIRA_STATUS[record.state],
        JIRA_PRIORITY[record.priority],
        record.assignee or "",
        record.reporter,
        stamp(record.created),
        stamp(record.closed),
        *tags,
        *notes,
        *[""] * (comments - len(notes)),
    ]
