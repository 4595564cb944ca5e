"""GitHub's REST issues JSON (``GET /repos/{owner}/{repo}/issues?state=all``, pages joined into one array).

Pull requests come back from that endpoint too, marked by a ``pull_request`` key: they share the
repository's number sequence, so they are skipped and the issue numbers keep their gaps.
``comments`` is a count in GitHub's answer; an export that embeds the comments as a list
(``[{"user": {"login"}, "body", "created_at"}]``, as ``export_issues`` writes) has them imported.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tracker.imports.records import Note, Record, at, when

ISSUE_URL = re.compile(r"^https?://[^/]+/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)/?$")


def _login(person: Any) -> str | None:
    return person.get("login") if isinstance(person, dict) else None


def _reference(url: Any) -> str | None:
    """``octo/repo#12`` from an issue's ``html_url`` (``https://github.com/octo/repo/issues/12``)."""
    match = ISSUE_URL.match(url) if isinstance(url, str) else None
    return f"{match['repo']}#{match['number']}" if match else None


def _number(value: Any) -> int:
    """A whole number as JSON writes it (``12``); ValueError for ``1.5``, ``1e37``, ``1e400``, ``true``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"an issue number must be a whole number, not {str(value)[:30]}")
    return int(value)


def parse(text: str) -> list[Record]:
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("expected a JSON array of issues")
    records = []
    for entry in data:
        if "pull_request" in entry:
            continue
        notes = entry.get("comments")
        records.append(
            Record(
                number=_number(entry["number"]),
                title=entry.get("title") or "",
                body=entry.get("body") or "",
                state="closed" if entry.get("state") == "closed" else "open",
                labels=[
                    label["name"] if isinstance(label, dict) else str(label) for label in entry.get("labels") or []
                ],
                assignee=_login(entry.get("assignee")),
                reporter=_login(entry.get("user")) or "imported",
                created=at(entry["created_at"]),
                closed=when(entry.get("closed_at")),
                comments=[
                    Note(
                        author=_login(c.get("user")) or "imported",
                        body=c.get("body") or "",
                        created=at(c["created_at"]),
                    )
                    for c in (notes if isinstance(notes, list) else [])
                ],
                ref=_reference(entry.get("html_url")),
                url=entry.get("html_url") if isinstance(entry.get("html_url"), str) else None,
            )
        )
    return records


def dump(record: Record) -> dict[str, Any]:
    """The record as a GitHub issue (the fields ``parse`` reads, comments embedded)."""

    def stamp(moment: Any) -> str | None:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None

    return {
        "number": record.number,
        "title": record.title,
        "body": record.body,
        "state": "closed" if record.state == "closed" else "open",
        "labels": [{"name": label} for label in record.labels],
        "assignee": {"login": record.assignee} if record.assignee else None,
        "user": {"login": record.reporter},
        "created_at": stamp(record.created),
        "closed_at": stamp(record.closed),
        "comments": [
            {"user": {"login": n.author}, "body": n.body, "created_at": stamp(n.created)} for n in record.comments
        ],
    }
