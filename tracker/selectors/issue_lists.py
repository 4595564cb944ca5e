"""Issue lists as the pages show them: the query decides which one-Query list answers it.

    search words given                → ``search.queries.search_page`` (the full-text engine, then one
                                        BatchGetItem of the rows shown); not with a milestone (QueryError)
    else a milestone (a project's)    → ``issues.status_list(milestone=)`` (index milestone_status, by number)
    else a label                      → ``issues.label_list``   (the label's entries in a status)
    else an assignee                  → ``issues.status_list``  (index assignee_status)
    else                              → ``issues.status_list``  (project_status[_updated] / team_status)

A label list asked for an assignee too keeps the page's rows of that person (bounded by the page); a
milestone's list asked for a label or an assignee too keeps the page's rows that have them (the same bound);
such a page says how many rows it looked at, so an empty one says "none of the N looked at" with its Next link,
or, on the last page (no Next, a Previous), that none on this page matched: not "no issues" for the whole list.
Lists without search words show one status, open unless asked; a search shows every status
unless asked. Cursors are signed and bound to the list they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ddbmodels import issues as ddb_issues
from ddbmodels.issues import IssueItem
from tracker import cursors
from tracker.exceptions import BadCursor
from tracker.issue_query import PROJECT_SORTS, TEAM_SORTS, IssueQuery, QueryError
from tracker.search.queries import search_page
from tracker.selectors.milestones import milestone_by_name

PAGE_SIZE = 25
DEFAULT_STATUS = "open"
MILESTONE_SORTS = ("newest", "oldest")  # the milestone_status index is by number


@dataclass(frozen=True)
class IssueListing:
    """One page of a list, and what answered it."""

    issues: list[IssueItem]
    next_cursor: str | None
    previous_cursor: str | None
    query: IssueQuery  # with "me" resolved and the status and sort the list used
    kind: str  # "search", "milestone", "label", "assignee" or "status"
    sorts: tuple[str, ...]  # the sorts this list offers ("" for none)
    looked_at: int = 0  # rows of the page checked for a label/assignee it has no list of its own for (0: not filtered)


def _sorts_of(kind: str, project_key: str | None) -> tuple[str, ...]:
    if kind == "milestone":
        return MILESTONE_SORTS
    if kind == "label":
        return ()
    return PROJECT_SORTS if project_key and kind == "status" else TEAM_SORTS


def _sort_for(query: IssueQuery, offered: tuple[str, ...]) -> str:
    return query.sort if query.sort in offered else offered[0]


def issue_listing(
    *,
    tenant: str,
    project_key: str | None,
    query: IssueQuery,
    cursor: str | None,
    username: str,
    size: int = PAGE_SIZE,
) -> IssueListing:
    """The page of issues ``query`` asks for (``size`` rows: the pages' 25, the API's ``limit`` up to 100);
    BadCursor for a cursor of another list or tampered with.

    QueryError (carrying the query without its milestone) for a milestone the project does not have,
    one asked of the team-wide list, or one with search words.
    """
    if query.assignee in ("me", "@me"):
        query = replace(query, assignee=username)
    milestone_id = _milestone_id(tenant, project_key, query) if query.milestone else None
    sorts: tuple[str, ...]
    if query.words:
        kind, sorts = "search", ()
    else:
        kind = "milestone" if milestone_id else "label" if query.label else "assignee" if query.assignee else "status"
        sorts = _sorts_of(kind, project_key)
        query = replace(query, status=query.status or DEFAULT_STATUS, sort=_sort_for(query, sorts) if sorts else None)
    parts = (query.status, query.assignee, query.label, query.words, query.sort)
    bound = [tenant, project_key or "*", kind, *(part or "" for part in parts)]
    if milestone_id:  # only when set: every cursor handed out before milestones existed stays valid
        bound.append(milestone_id)
    listing = "|".join(bound)
    position = cursors.decode_key(cursor, listing=listing)
    start = position.key if position else None
    backwards = position.backwards if position else False
    looked_at = 0
    if kind == "search":
        offset = start.get("o") if start else 0
        if not isinstance(offset, int) or offset < 0:
            raise BadCursor(cursors.INVALID)
        found = search_page(
            tenant=tenant,
            text=query.words,
            project_key=project_key,
            status=query.status,
            label=query.label,
            assignee=query.assignee,
            size=size,
            offset=offset,
        )
        next_at = {"o": found.next_offset} if found.next_offset is not None else None
        page = ddb_issues.IssuePage(issues=found.issues, next_key=next_at, prev_key=None)
    elif kind == "milestone":
        assert query.status is not None
        page = ddb_issues.status_list(
            tenant=tenant,
            status=query.status,
            project_key=project_key,
            milestone=milestone_id,
            ascending=query.sort == "oldest",
            size=size,
            start=start,
            backwards=backwards,
        )
        if query.label or query.assignee:  # checked on the page's rows only: a bounded look, not a list of its own
            looked_at = len(page.issues)
            page = replace(page, issues=[i for i in page.issues if _has(i, query)])
    elif kind == "label":
        assert query.label is not None
        assert query.status is not None
        page = ddb_issues.label_list(
            tenant=tenant,
            label=query.label,
            status=query.status,
            project_key=project_key,
            size=size,
            start=start,
            backwards=backwards,
        )
        if query.assignee:  # checked on the page's rows only: a bounded look, not a list of its own
            looked_at = len(page.issues)
            page = replace(page, issues=[i for i in page.issues if i.assignee == query.assignee])
    else:
        assert query.status is not None
        sort = query.sort or "updated"
        page = ddb_issues.status_list(
            tenant=tenant,
            status=query.status,
            project_key=project_key,
            assignee=query.assignee,
            sort="number" if sort in ("newest", "oldest") else "updated",
            ascending=sort in ("oldest", "stale"),
            size=size,
            start=start,
            backwards=backwards,
        )

    def link(key: dict[str, object] | None, backwards: bool) -> str | None:
        return cursors.encode_key(listing=listing, key=key, backwards=backwards) if key else None

    return IssueListing(
        issues=page.issues,
        next_cursor=link(page.next_key, False),
        previous_cursor=link(page.prev_key, True),
        query=query,
        kind=kind,
        sorts=sorts,
        looked_at=looked_at,
    )


def _has(issue: IssueItem, query: IssueQuery) -> bool:
    return (not query.label or query.label in (issue.labels or ())) and (
        not query.assignee or issue.assignee == query.assignee
    )


def _milestone_id(tenant: str, project_key: str | None, query: IssueQuery) -> str:
    """The id of the milestone ``query`` names, from the project's cached milestones; QueryError if none."""
    assert query.milestone is not None
    rest = replace(query, milestone=None)
    quoted = f"“milestone:{query.milestone}”"
    if not project_key:
        raise QueryError(f"{quoted} works inside a project: open the project's list to use it.", rest)
    if query.words:
        raise QueryError(f"{quoted} and search words do not go together yet: search, or list the milestone.", rest)
    found = milestone_by_name(tenant=tenant, project_key=project_key, name=query.milestone)
    if found is None:
        raise QueryError(f"{quoted}: {project_key} has no milestone of that name.", rest)
    return found.milestone_id
