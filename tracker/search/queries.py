"""The search page's query: a page of references from the engine, then the rows from DynamoDB, current.

    engine.search            one SQL statement: ``size + 1`` references, best first (the +1 tells
                             whether there is a next page)
    issues_get_many          one BatchGetItem of the ``size`` rows shown — 0.5 RCU an issue

The engine filters on the status, labels and assignee its documents hold; a document may be a
moment behind DynamoDB (its task has not run yet), so each row read is checked once more
against the filters and dropped if it no longer matches (or is gone): a page may show fewer
rows than ``size``, never a row that does not match. Paging is by position in the engine's
order (``offset``), signed into the page's cursor by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from ddbmodels.issues import IssueItem, issues_get_many
from tracker.search import engine

MAX_OFFSET = 10_000  # deeper than anyone pages; bounds the engine's sort work for a common word


@dataclass(frozen=True)
class SearchPage:
    issues: list[IssueItem]
    next_offset: int | None


def _matches(issue: IssueItem, filters: engine.Filters) -> bool:
    if issue.is_tombstone:
        return False
    if filters.status and issue.status != filters.status:
        return False
    if filters.label and filters.label not in (issue.labels or ()):
        return False
    return not (filters.assignee and issue.assignee != filters.assignee)


def search_page(
    *,
    tenant: str,
    text: str,
    project_key: str | None = None,
    status: str | None = None,
    label: str | None = None,
    assignee: str | None = None,
    size: int = 25,
    offset: int = 0,
    using: str = "default",
) -> SearchPage:
    """The issues of ``tenant`` whose title, description or a comment has every word of ``text`` (prefixes).

    Title matches first, then by relevance and recency. One engine statement + one BatchGetItem
    (0.5 RCU per row shown); nothing at all when ``text`` has no word.
    """
    words = engine.query_words(text)
    offset = max(0, min(offset, MAX_OFFSET))
    if not words:
        return SearchPage(issues=[], next_offset=None)
    filters = engine.Filters(tenant=tenant, project_key=project_key, status=status, label=label, assignee=assignee)
    found = engine.search(words, filters, limit=size + 1, offset=offset, using=using)
    shown = found[:size]
    rows = issues_get_many(tenant=tenant, refs=shown) if shown else {}
    issues = [rows[ref] for ref in shown if ref in rows and _matches(rows[ref], filters)]
    more = len(found) > size and offset + size < MAX_OFFSET
    return SearchPage(issues=issues, next_offset=offset + size if more else None)
