"""A project's issues written out as GitHub JSON, Jira CSV or plain CSV, page by page (constant memory).

Reads: the project's collection, newest first, 100 issues a Query (≈ 0.5 RCU per 4 KB read,
tombstones skipped), and each issue's comments, 100 a Query (one Query per issue at least).
The output is written as each page arrives, so memory holds one page, whatever the project's
size. A closed issue's "closed" time is its last update (issues keep no separate closing time).
Jira CSV has a fixed number of columns: 10 ``Labels`` (an issue's most) and ``JIRA_COMMENTS``
``Comment`` columns (an issue's later comments are left out of that format).
In both CSV formats a cell a spreadsheet would run as a formula (starting with = + - @, a tab or CR)
is written with a leading ``'`` (``tracker.imports.cells``); the importers take it off again.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import TextIO

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from tracker.imports import github, jira, plain_csv
from tracker.imports.cells import safe_cell
from tracker.imports.records import Note, Record

PAGE = 100
JIRA_COMMENTS = 20


def records(*, tenant: str, project_key: str) -> Iterator[Record]:
    """The project's live issues as records, newest first, one page of issues read at a time."""
    after: int | None = None
    while True:
        page = ddb_issues.issue_page(tenant=tenant, project_key=project_key, size=PAGE, after=after)
        for issue in page.items:
            yield Record(
                number=int(issue.number),
                title=issue.title,
                body=issue.description or "",
                state=issue.status,
                priority=issue.priority,
                labels=sorted(issue.labels or ()),
                assignee=issue.assignee,
                reporter=issue.reporter,
                created=issue.created_at,
                closed=issue.updated_at if issue.status == "closed" else None,
                comments=list(_notes(ddb_comments.issue_stream(tenant, project_key, int(issue.number)))),
            )
        if page.older_than is None:
            return
        after = page.older_than


def _notes(stream: str) -> Iterator[Note]:
    after: str | None = None
    while True:
        page = ddb_comments.comment_page(stream=stream, size=ddb_comments.PAGE_SIZE_MAX, after=after)
        for c in page.comments:
            yield Note(author=c.author, body=c.body, created=c.created_at)
        if page.newer_than is None:
            return
        after = page.newer_than


def write(fmt: str, out: TextIO, *, tenant: str, project_key: str) -> int:
    """Write the project in ``fmt`` to ``out``; how many issues were written."""
    count = 0
    if fmt == "github":
        out.write("[")
        for count, record in enumerate(records(tenant=tenant, project_key=project_key), start=1):
            out.write(("," if count > 1 else "") + "\n" + json.dumps(github.dump(record)))
        out.write("\n]\n")
    elif fmt == "jira":
        writer = csv.writer(out)
        writer.writerow(jira.header(project_key, ddb_issues.LABELS_MAX, JIRA_COMMENTS))
        for record in records(tenant=tenant, project_key=project_key):
            count += 1
            record.comments = record.comments[:JIRA_COMMENTS]
            writer.writerow([safe_cell(c) for c in jira.row(project_key, record, ddb_issues.LABELS_MAX, JIRA_COMMENTS)])
    elif fmt == "csv":
        dict_writer = csv.DictWriter(out, fieldnames=plain_csv.COLUMNS)
        dict_writer.writeheader()
        for record in records(tenant=tenant, project_key=project_key):
            count += 1
            dict_writer.writerow({name: safe_cell(value) for name, value in plain_csv.row(record).items()})
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return count
