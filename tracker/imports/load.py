"""The bulk load: records → issues (list-index keys, label entries) and comments, written by
BatchWriteItem interleaved across every project being imported, under a WCU budget, checkpointed
(the writes are ``ddbmodels.issues.import_load``'s; this module turns records into items and plans).

Keys are fixed by the export (the issue's number; a comment's time and a suffix hashed from its
issue and place), and every put is unconditional, so writing the same load twice overwrites
and adds nothing. The checkpoint is the number of requests written, in the ``jobs`` table under
``import_issues:<tenant>:<fingerprint of the inputs>``, saved after every BatchWriteItem (1 WCU
per 25 requests): a killed run resumes after its last written chunk, and a finished load run
again writes nothing. Requests follow one order (``issues.import_order`` over the projects'
streams), so a resumed run skips exactly what was written. The checkpoint's item carries the
team, so offboarding deletes it: a team re-created later under the same slug that imports the
same file starts from nothing.

Cost: each item 1 WCU per started KB; a live issue also writes its list-index entries (2 for
the status indexes, 1 for the team's, 1 more when assigned) and one ``labels`` entry per label
(an item of its own); title words are the search engine's. ``minimum_wcu`` is that floor; the
report sets the measured WCU against it.

Each issue carries where it came from (``IssueItem.imported``: format, its reference and link
there, who imported it, when; ≈ 100 bytes of the item, rarely a KB more), and its history opens
with that line (``tracker.selectors.activity``). An ``issue.imported`` event per issue would say
the same for 2 WCU more an issue (the event and its ``by_day`` entry), and be archived with its
period; the attribute lives as long as the issue.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ddbmodels import issues
from ddbmodels.comments import CommentItem, issue_stream
from ddbmodels.core.keys import time_key
from ddbmodels.issues import ImportOrigin, IssueItem, Loaded, Request, collection_key
from tracker.imports.records import Record

__all__ = [
    "Loaded",
    "Origin",
    "Plan",
    "Request",
    "comment_items",
    "issue_item",
    "item_size",
    "minimum_wcu",
    "plan",
    "project_requests",
    "run",
]


@dataclass(frozen=True)
class Origin:
    """Who imports, from which format, when: written on every issue of the load (its history starts there)."""

    source: str  # one of tracker.imports.FORMATS
    by: str
    at: datetime


def issue_item(tenant: str, project_key: str, record: Record, origin: Origin | None = None) -> IssueItem:
    """The issue a record stands for (version 1; updated at its latest close or comment), marked with its origin."""
    moments = [record.created, *([record.closed] if record.closed else []), *(n.created for n in record.comments)]
    return IssueItem(
        pk=collection_key(tenant, project_key),
        number=record.number,
        title=record.title,
        description=record.body or None,
        status=record.state,
        priority=record.priority,
        assignee=record.assignee,
        reporter=record.reporter,
        labels=set(record.labels) or None,
        created_at=record.created,
        updated_at=max(moments),
        version=1,
        imported=None
        if origin is None
        else ImportOrigin(source=origin.source, ref=record.ref, url=record.url, by=origin.by, at=origin.at),
    )


def comment_items(tenant: str, project_key: str, record: Record) -> list[CommentItem]:
    """The record's comments with fixed sort keys: its time, its place (4 hex) and 8 hex hashed from both."""
    stream = issue_stream(tenant, project_key, record.number)
    items = []
    for place, note in enumerate(record.comments):
        # its place first: comments of the same millisecond keep the export's order
        suffix = f"{place:04x}{hashlib.sha256(f'{stream}#{place}'.encode()).hexdigest()[:8]}"
        items.append(
            CommentItem(
                stream=stream,
                key=f"{time_key(note.created)}#{suffix}",
                author=note.author,
                body=note.body,
                version=1,
                created_at=note.created,
                updated_at=note.created,
            )
        )
    return items


def project_requests(
    tenant: str, project_key: str, records: Sequence[Record], origin: Origin | None = None
) -> list[Request]:
    """Every put of one project's import, issue by issue (each issue, its entries, then its comments)."""
    return issues.import_requests(
        (issue_item(tenant, project_key, record, origin), comment_items(tenant, project_key, record))
        for record in records
    )


def item_size(item: dict[str, Any]) -> int:
    """DynamoDB's size of an item in DynamoDB JSON: names plus values (UTF-8 bytes, numbers ≈ digits/2 + 1)."""

    def value(v: dict[str, Any]) -> int:
        ((kind, raw),) = v.items()
        if kind == "S":
            return len(raw.encode())
        if kind == "N":
            return len(raw.lstrip("-").replace(".", "")) // 2 + 1
        if kind == "SS":
            return sum(len(s.encode()) for s in raw)
        if kind == "BOOL" or kind == "NULL":
            return 1
        if kind == "M":
            return 3 + sum(len(k.encode()) + value(x) for k, x in raw.items())
        if kind == "L":
            return 3 + sum(1 + value(x) for x in raw)
        return len(str(raw))

    return sum(len(name.encode()) + value(v) for name, v in item.items())


def minimum_wcu(requests: Sequence[Request]) -> int:
    """The floor: 1 WCU per started KB of each item, + 1 per list-index entry of each live issue (entries < 1 KB)."""
    total = 0
    for _, request in requests:
        item = request["PutRequest"]["Item"]
        total += max(1, math.ceil(item_size(item) / 1024))
        total += 2 * ("xs" in item) + ("xt" in item) + ("xa" in item)
    return total


@dataclass
class Plan:
    """What a load will write: the requests in their interleaved order, and per project how many issues."""

    tenant: str
    fingerprint: str
    requests: list[Request]
    issues: dict[str, int]
    comments: int
    minimum_wcu: int

    @property
    def job(self) -> str:
        return f"import_issues:{self.tenant}:{self.fingerprint[:16]}"


def plan(tenant: str, projects: dict[str, list[Record]], *, fingerprint: str, origin: Origin | None = None) -> Plan:
    """Order the puts of every project into one stream, every chunk mixing the projects.

    ``origin`` marks every issue as imported (by whom, from what, when): its history says so.
    """
    streams = [project_requests(tenant, key, records, origin) for key, records in sorted(projects.items())]
    requests = issues.import_order(streams)
    return Plan(
        tenant=tenant,
        fingerprint=fingerprint,
        requests=requests,
        issues={key: len(records) for key, records in sorted(projects.items())},
        comments=sum(len(r.comments) for records in projects.values() for r in records),
        minimum_wcu=minimum_wcu(requests),
    )


def run(
    p: Plan,
    *,
    max_wcu: float | None = None,
    restart: bool = False,
    on_batch: Callable[[int], None] | None = None,
    keep_chunks: bool = False,
) -> Loaded:
    """Write the plan's requests from its checkpoint on (``ddbmodels.issues.import_load``: BatchWriteItem
    under ``max_wcu`` per second, the checkpoint saved after each chunk).

    ``restart`` ignores a saved checkpoint (everything is written again, overwriting the same
    items). ``on_batch(requests)`` reports progress; ``keep_chunks`` keeps what each chunk held.
    """
    return issues.import_load(
        p.job,
        p.requests,
        tenant=p.tenant,
        max_wcu=max_wcu,
        restart=restart,
        on_batch=on_batch,
        keep_chunks=keep_chunks,
    )
