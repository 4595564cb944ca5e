"""What a delivery says: ``{"type", "timestamp", "data": {team, project, issue, actor, changes}}``, ≤ 2 KB.

``issue`` is the issue as the API's lists show it (the fields of ``tracker.api.issue_out.IssueSummary``; a test
keeps them equal), built from the item in hand: no read. ``changes`` is the recorded event's data without the
description's word diff (up to 2 KB of the history's, never sent). ``timestamp`` is the change's (its event key's
time), the same on every attempt; the attempt's own time is in the ``webhook-timestamp`` header.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ddbmodels.core.keys import as_utc
from ddbmodels.issues import IssueItem
from ddbmodels.webhooks import PAYLOAD_MAX

LEFT_OUT = frozenset({"diff", "diff_removed_by"})  # the history's word diff and who took it out: not sent
TITLE_SHORT = 80  # a payload still too large (long titles and labels, many bytes a character) shortens the title


def iso(when: datetime) -> str:
    """ISO 8601 in UTC with ``Z``, to the millisecond, as the API writes times (``tracker.api.schemas.as_sent``:
    ninja's encoder, no fraction when the milliseconds are 0), so a delivery's issue reads as the API's list row."""
    when = as_utc(when).replace(microsecond=as_utc(when).microsecond // 1000 * 1000)
    text = when.isoformat()
    if when.microsecond:
        text = text[:23] + text[26:]
    return text.replace("+00:00", "Z")


def issue_fields(issue: IssueItem) -> dict[str, Any]:
    """The issue as a list row of the API shows it (``IssueSummary``), from the item in hand."""
    return {
        "reference": issue.reference,
        "project": issue.project_key,
        "number": int(issue.number),
        "title": issue.title,
        "status": issue.status,
        "priority": issue.priority,
        "assignee": issue.assignee or None,
        "labels": sorted(issue.labels or ()),
        "reporter": issue.reporter,
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "version": int(issue.version or 0),
    }


def plain(value: object) -> object:
    """What JSON lacks, as the history keeps it: a set as its sorted list, a time in ISO 8601, else its text."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    if isinstance(value, datetime):
        return iso(value)
    return str(value)


def encode(payload: dict[str, Any]) -> str:
    """The body sent (and signed): compact JSON, UTF-8 as is."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=plain)


def payload_text(issue: IssueItem, *, type: str, actor: str, data: dict[str, Any], event_key: str) -> str:
    """The delivery's body, at most ``PAYLOAD_MAX`` bytes: the changes are left out past it (``changes_omitted``),
    then the title shortened."""
    changes = {key: value for key, value in data.items() if key not in LEFT_OUT}
    inner: dict[str, Any] = {
        "team": issue.tenant,
        "project": issue.project_key,
        "issue": issue_fields(issue),
        "actor": actor,
        "changes": changes,
    }
    payload = {"type": type, "timestamp": event_key.partition("#")[0], "data": inner}
    text = encode(payload)
    if len(text.encode()) <= PAYLOAD_MAX:
        return text
    inner["changes"] = {}
    inner["changes_omitted"] = True  # too large to send: the issue's history has them
    text = encode(payload)
    if len(text.encode()) <= PAYLOAD_MAX:
        return text
    inner["issue"]["title"] = inner["issue"]["title"][:TITLE_SHORT]
    inner["issue"]["labels"] = [label[: TITLE_SHORT // 4] for label in inner["issue"]["labels"]]
    return encode(payload)
