"""The issue list's filters: the query box (its language: ``tracker.issue_query``) and the URL's parameters.

The box and the URL's parameters say the same thing two ways: ``?status=open&assignee=me``
or ``?q=is:open assignee:@me``. Parameters win over the box where both speak. What is left of
the box after the filters is the search text; ``WEB-123`` (or ``123`` inside a project) alone
is a jump to that issue.
"""

from __future__ import annotations

from dataclasses import replace

from django import forms

from tracker.issue_query import (
    PARSERS,
    PROJECT_SORTS,
    SORT_LABELS,
    TEAM_SORTS,
    IssueQuery,
    QueryError,
    goto_target,
    parse,
)
from tracker.issue_terms import STATUS_LABELS


class IssueFilterForm(forms.Form):
    """The list page's GET parameters; ``query()`` merges them with the box."""

    q = forms.CharField(required=False, max_length=300)
    status = forms.CharField(required=False, max_length=20)
    assignee = forms.CharField(required=False, max_length=151)
    label = forms.CharField(required=False, max_length=31)
    milestone = forms.CharField(required=False, max_length=61)
    sort = forms.CharField(required=False, max_length=20)
    cursor = forms.CharField(required=False, max_length=2000)

    def query(self) -> IssueQuery:
        """The parameters over the box's text; QueryError when either says something unknown.

        Like ``parse``, the error names every filter it does not understand and carries the rest.
        """
        data = self.cleaned_data
        error: QueryError | None = None
        try:
            query = parse(data.get("q") or "")
        except QueryError as problem:
            error, query = problem, problem.query
        changes: dict[str, str] = {}
        problems = [str(error)] if error else []
        for field in ("status", "assignee", "label", "milestone", "sort"):
            value = (data.get(field) or "").strip()
            if value:
                try:
                    changes[field] = PARSERS[field](value)
                except QueryError as problem:
                    problems.append(f"“{field}={value}” {problem}")
        query = replace(query, **changes)
        if problems:
            raise QueryError(" ".join(problems), query, error.suggestion if error else None)
        return query


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
