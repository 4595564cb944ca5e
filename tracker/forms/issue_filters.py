"""The issue list's filters: a query box that understands ``is:open assignee:@me label:bug`` and free words.

The box and the URL's parameters say the same thing two ways: ``?status=open&assignee=me``
or ``?q=is:open assignee:@me``. Parameters win over the box where both speak. What is left of
the box after the filters is the search text; ``WEB-123`` (or ``123`` inside a project) alone
is a jump to that issue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django import forms

from ddbmodels.issues import PROJECT_KEY_RE, STATUSES
from tracker.forms.issues import LABEL_RE, STATUS_LABELS

SORT_LABELS = {
    "newest": "Newest",
    "oldest": "Oldest",
    "updated": "Recently updated",
    "stale": "Least recently updated",
}
# Project lists sort by number or by last update; team-wide and per-person lists by last update.
PROJECT_SORTS = ("newest", "oldest", "updated", "stale")
TEAM_SORTS = ("updated", "stale")
STATUS_WORDS = {
    **{status: status for status in STATUSES},
    "in-progress": "in_progress",
    "progress": "in_progress",
    "done": "resolved",
}
USERNAME_RE = re.compile(r"^[\w.@+-]{1,150}$")
GOTO_RE = re.compile(r"^([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,15})$")
NUMBER_RE = re.compile(r"^#?(\d{1,15})$")
TOKEN_RE = re.compile(r"^(is|status|assignee|label|sort):(.*)$", re.IGNORECASE)


class QueryError(ValueError):
    """A filter the list does not understand; its message is shown on the page."""


@dataclass(frozen=True)
class IssueQuery:
    """What the list is asked for."""

    status: str | None = None
    assignee: str | None = None  # a username; "me" is resolved by the caller
    label: str | None = None
    sort: str | None = None
    words: str = ""

    def text(self) -> str:
        """The query box's text for this query (what a user would type)."""
        parts = []
        if self.status:
            parts.append(f"is:{self.status}")
        if self.assignee:
            parts.append(f"assignee:{self.assignee}")
        if self.label:
            parts.append(f"label:{self.label}")
        if self.sort:
            parts.append(f"sort:{self.sort}")
        if self.words:
            parts.append(self.words)
        return " ".join(parts)


def _status(value: str) -> str:
    status = STATUS_WORDS.get(value.lower())
    if status is None:
        names = ", ".join(f"is:{s}" for s in STATUSES)
        raise QueryError(f"Unknown status “{value}”: use {names}.")
    return status


def _assignee(value: str) -> str:
    value = value.removeprefix("@")
    if not USERNAME_RE.match(value):
        raise QueryError(f"“{value}” is not a username.")
    return value


def _label(value: str) -> str:
    value = value.lower()
    if not LABEL_RE.match(value) or len(value) > 30:
        raise QueryError(f"“{value}” is not a label.")
    return value


def _sort(value: str) -> str:
    if value not in SORT_LABELS:
        raise QueryError(f"Unknown sort “{value}”: use {', '.join(SORT_LABELS)}.")
    return value


PARSERS = {"is": _status, "status": _status, "assignee": _assignee, "label": _label, "sort": _sort}


def parse(text: str) -> IssueQuery:
    """The query in the box's ``text``; QueryError for a filter it does not understand."""
    found: dict[str, str] = {}
    words: list[str] = []
    for token in text.split():
        match = TOKEN_RE.match(token)
        if match is None:
            words.append(token)
            continue
        name, value = match.group(1).lower(), match.group(2)
        if not value:
            raise QueryError(f"“{token}” needs a value.")
        field = "status" if name == "is" else name
        found[field] = PARSERS[name](value)
    return IssueQuery(words=" ".join(words), **found)


class IssueFilterForm(forms.Form):
    """The list page's GET parameters; ``query()`` merges them with the box."""

    q = forms.CharField(required=False, max_length=300)
    status = forms.CharField(required=False, max_length=20)
    assignee = forms.CharField(required=False, max_length=151)
    label = forms.CharField(required=False, max_length=31)
    sort = forms.CharField(required=False, max_length=20)
    cursor = forms.CharField(required=False, max_length=2000)

    def query(self) -> IssueQuery:
        """The parameters over the box's text; QueryError when either says something unknown."""
        data = self.cleaned_data
        query = parse(data.get("q") or "")
        changes: dict[str, str] = {}
        for field in ("status", "assignee", "label", "sort"):
            value = (data.get(field) or "").strip()
            if value:
                changes[field] = PARSERS[field](value)
        return replace(query, **changes)


def goto_target(words: str, *, project_key: str | None) -> tuple[str, int] | None:
    """(project key, number) when the search text is just an issue reference; None otherwise."""
    words = words.strip()
    match = GOTO_RE.match(words)
    if match and PROJECT_KEY_RE.match(match.group(1).upper()):
        return match.group(1).upper(), int(match.group(2))
    match = NUMBER_RE.match(words)
    if match and project_key:
        return project_key, int(match.group(1))
    return None


__all__ = [
    "PROJECT_SORTS",
    "SORT_LABELS",
    "STATUS_LABELS",
    "TEAM_SORTS",
    "IssueFilterForm",
    "IssueQuery",
    "QueryError",
    "goto_target",
    "parse",
]
