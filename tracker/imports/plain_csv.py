"""A plain CSV any tool can write: one row per issue, a header row naming the columns.

    number,title,body,state,priority,labels,assignee,reporter,created,closed

``number`` and ``title`` are required; ``state`` one of open, in_progress, resolved, closed
(default open); ``priority`` one of low, medium, high, urgent (default medium); ``labels``
separated by spaces; ``created``/``closed`` ISO-8601 (UTC when no offset is given); an optional
``url`` column is the issue's page where it came from (its history links to it).
Comments are not part of this format. A cell written as ``'`` before ``= + - @``, a tab or CR (as
``export_issues`` writes formula-like cells) is read without that ``'`` (``tracker.imports.cells``).
"""

from __future__ import annotations

import csv
import io
from datetime import datetime

from ddbmodels.core.keys import utcnow
from tracker.imports.cells import read_cell
from tracker.imports.records import Record, when

COLUMNS = ["number", "title", "body", "state", "priority", "labels", "assignee", "reporter", "created", "closed"]


def parse(text: str) -> list[Record]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"number", "title"} <= set(reader.fieldnames):
        raise ValueError("the header must name at least 'number' and 'title'")
    return [
        Record(
            number=int(row["number"]),
            title=row["title"] or "",
            body=row.get("body") or "",
            state=(row.get("state") or "open").strip().lower(),
            priority=(row.get("priority") or "medium").strip().lower(),
            labels=(row.get("labels") or "").split(),
            assignee=row.get("assignee") or None,
            reporter=row.get("reporter") or "imported",
            created=when(row.get("created")) or utcnow(),
            closed=when(row.get("closed")),
            url=row.get("url") or None,
        )
        for row in ({k: read_cell(v) if isinstance(v, str) else v for k, v in written.items()} for written in reader)
        if (row.get("number") or "").strip()
    ]


def row(record: Record) -> dict[str, str]:
    def stamp(moment: datetime | None) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else ""

    return {
        "number": str(record.number),
        "title": record.title,
        "body": record.body,
        "state": record.state,
        "priority": record.priority,
        "labels": " ".join(record.labels),
        "assignee": record.assignee or "",
        "reporter": record.reporter,
        "created": stamp(record.created),
        "closed": stamp(record.closed),
    }
