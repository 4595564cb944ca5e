"""The issue list's query language: ``is:open assignee:@me label:bug milestone:"v1.2" sort:updated`` and free words.

A value may be quoted (``milestone:"v1.2 beta"``): a double-quoted run is one token, spaces included.

What a list is asked for (``IssueQuery``), parsed from the query box's text (``parse``) with
every filter it does not understand named (``QueryError``). Plain Python: the list's form
(``tracker.forms.issue_filters``) and its selector (``tracker.selectors.issue_lists``) both use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ddbmodels.issues import PROJECT_KEY_RE, STATUSES
from ddbmodels.milestones import NAME_MAX as MILESTONE_NAME_MAX
from tracker.issue_terms import LABEL_RE

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
TOKEN_RE = re.compile(r"^(is|status|assignee|label|milestone|sort):(.*)$", re.IGNORECASE | re.DOTALL)
# A token: runs of anything but spaces and quotes, and double-quoted runs (spaces kept; an unclosed quote runs on).
TOKENS_RE = re.compile(r'(?:[^\s"]+|"[^"]*"?)+')


class QueryError(ValueError):
    """Filters the list does not understand; the message (shown on the page) names each of them.

    ``query`` is the rest of what was asked (the list shows it), and ``suggestion`` the box's text
    with a value run into the next word taken apart (``sort:updateddeploy`` → ``sort:updated
    deploy``), when that is what it looks like.
    """

    def __init__(self, message: str, query: IssueQuery | None = None, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.query = query if query is not None else IssueQuery()
        self.suggestion = suggestion


@dataclass(frozen=True)
class IssueQuery:
    """What the list is asked for."""

    status: str | None = None
    assignee: str | None = None  # a username; "me" is resolved by the caller
    label: str | None = None
    sort: str | None = None
    words: str = ""
    milestone: str | None = None  # a milestone's name as typed (a project's list resolves it)

    def text(self) -> str:
        """The query box's text for this query (what a user would type)."""
        parts = []
        if self.status:
            parts.append(f"is:{self.status}")
        if self.assignee:
            parts.append("assignee:@me" if self.assignee == "me" else f"assignee:{self.assignee}")
        if self.label:
            parts.append(f"label:{self.label}")
        if self.milestone:
            plain = self.milestone.split() == [self.milestone]
            parts.append(f"milestone:{self.milestone}" if plain else f'milestone:"{self.milestone}"')
        if self.sort:
            parts.append(f"sort:{self.sort}")
        if self.words:
            parts.append(self.words)
        return " ".join(parts)


def _status(value: str) -> str:
    status = STATUS_WORDS.get(value.lower())
    if status is None:
        names = ", ".join(f"is:{s}" for s in STATUSES)
        raise QueryError(f"is not a status this list knows (use {names}).")
    return status


def _assignee(value: str) -> str:
    value = value.removeprefix("@")
    if not USERNAME_RE.match(value):
        raise QueryError("is not a username.")
    return value


def _label(value: str) -> str:
    value = value.lower()
    if not LABEL_RE.match(value) or len(value) > 30:
        raise QueryError("is not a label (letters, digits, “-”, “_” and “.”, at most 30 of them).")
    return value


def _milestone(value: str) -> str:
    name = " ".join(value.strip('"').split())
    if not name or len(name) > MILESTONE_NAME_MAX or '"' in name:
        raise QueryError(f"is not a milestone's name (1–{MILESTONE_NAME_MAX} characters; quote one with spaces).")
    return name


def _sort(value: str) -> str:
    if value not in SORT_LABELS:
        names = ", ".join(f"sort:{s}" for s in SORT_LABELS)
        raise QueryError(f"is not a sort this list knows (use {names}).")
    return value


PARSERS = {
    "is": _status,
    "status": _status,
    "assignee": _assignee,
    "label": _label,
    "milestone": _milestone,
    "sort": _sort,
}
# The values a filter takes from a fixed list: a longer value that starts with one of them is
# probably that one run into the next word ("sort:updateddeploy" after "sort:updated" + "deploy").
KNOWN_VALUES = {"is": tuple(STATUS_WORDS), "status": tuple(STATUS_WORDS), "sort": tuple(SORT_LABELS)}
EXAMPLES = {
    "is": "is:open",
    "status": "status:open",
    "assignee": "assignee:@me",
    "label": "label:bug",
    "milestone": 'milestone:"v1.2"',
    "sort": "sort:updated",
}


def _taken_apart(name: str, value: str) -> str | None:
    """``name:value`` split after the known value it starts with (``sort:updated deploy``), or None."""
    for known in sorted(KNOWN_VALUES.get(name, ()), key=len, reverse=True):
        if value.lower().startswith(known) and len(value) >= len(known) + 3:  # a word, not a typo's extra letter
            return f"{name}:{known} {value[len(known) :]}"
    return None


def parse(text: str) -> IssueQuery:
    """The query in the box's ``text``; QueryError naming each filter it does not understand.

    The error carries the query without those filters, so the page can still show a list.
    """
    found: dict[str, str] = {}
    words: list[str] = []
    problems: list[str] = []
    tokens = TOKENS_RE.findall(text)
    fixed = list(tokens)
    for at, token in enumerate(tokens):
        match = TOKEN_RE.match(token)
        if match is None:
            words.append(token)
            continue
        name, value = match.group(1).lower(), match.group(2)
        field = "status" if name == "is" else name
        try:
            if not value:
                raise QueryError(f"needs a value, such as {EXAMPLES[name]}.")
            found[field] = PARSERS[name](value)
        except QueryError as problem:
            problems.append(f"“{token}” {problem}")
            fixed[at] = _taken_apart(name, value) or token
    query = IssueQuery(words=" ".join(words), **found)
    if problems:
        suggestion = " ".join(fixed)
        raise QueryError(" ".join(problems), query, suggestion if suggestion != " ".join(tokens) else None)
    return query


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
