"""Issues read: a project's list and the team's, one issue, one issue's history.

A list is the pages' list (``tracker.selectors.issue_lists.issue_listing``): the same filters, the same one Query
of one list index per page whatever the project's size, the same signed cursors (bound to the list and its
filters, a day old at most: a cursor of another list, edited or expired, is a 400). ``limit`` rows a page (≤ 100);
the next and previous pages are in the body (``next_cursor``, ``prev_cursor``) and in the ``Link`` header.

Filters: ``q`` is the list's query box (``is:open label:bug assignee:@me milestone:"v1.2" sort:updated`` and
search words); ``state``, ``assignee`` (``me`` for the token's person), ``label``, ``milestone`` and ``sort``
override what ``q`` says. A filter the list does not understand is a 422 naming it; so is a sort the list does
not offer (team-wide lists sort by update only; a label's list and a search have their own order).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Header, Path, Query, Router, Schema
from ninja.errors import ValidationError
from pydantic import Field

from tracker.api.access import team_access
from tracker.api.etag import etag_of, not_modified, not_modified_response
from tracker.api.issue_out import IssueOut, IssueSummary, Status, issue_out
from tracker.api.issue_out import issue_summary as summary_of
from tracker.api.openapi import cost
from tracker.api.paging import set_links
from tracker.api.schemas import Page
from tracker.issue_query import PARSERS, IssueQuery, QueryError, parse
from tracker.selectors.activity import issue_history_page
from tracker.selectors.issue_lists import issue_listing
from tracker.selectors.issues import project_issue_access
from tracker.selectors.milestones import milestone_names
from tracker.selectors.projects import project_access

router = Router(tags=["issues"])

Sort = Literal["newest", "oldest", "updated", "stale"]
LIMIT_MAX = 100
NUMBER_MAX = 10**15 - 1  # the pages' 15 digits (tracker.issue_query.NUMBER_RE)
ETAG = {
    "description": "The resource's version, quoted: send it as If-None-Match (304) or If-Match (a PATCH).",
    "schema": {"type": "string"},
}
LINK = {
    "description": 'The next and previous pages\' URLs (RFC 8288): `<…>; rel="next", <…>; rel="prev"`.',
    "schema": {"type": "string"},
}
LIST_COST = cost(
    requests="1 (one Query of one list index); + 1 GetItem on a cold project cache",
    rcu="0.5–1 at limit 25, ≤ 4 at limit 100 (rows of 150–300 B); search words: 0.5 a row shown",
    note="Whatever the project's size. Search words: the search engine (SQL) + one BatchGetItem of the rows shown. "
    "label with assignee, or milestone with label/assignee: the page's rows are checked (`looked_at`), no more read.",
)
LIST_EXTRA = {**LIST_COST, "responses": {200: {"description": "OK", "headers": {"Link": LINK}}}}


class IssueFilters(Schema):
    """What a list is asked for: the pages' filters, a page size and where to continue."""

    q: str = Field("", max_length=500, description='The query box: `is:open label:bug milestone:"v1.2"` and words.')
    state: Status | None = Field(None, description="One status (default: open; a search: every status).")
    assignee: str | None = Field(None, max_length=150, description="A username, or `me` for the token's person.")
    label: str | None = Field(None, max_length=30, description="One label.")
    milestone: str | None = Field(None, max_length=100, description="A milestone's name (project lists only).")
    sort: Sort | None = Field(None, description="newest/oldest (by number) or updated/stale (by last update).")
    limit: int = Field(25, ge=1, le=LIMIT_MAX, description="Issues a page.")
    cursor: str | None = Field(None, max_length=2000, description="A page's `next_cursor` or `prev_cursor`.")


class IssuePage(Page[IssueSummary]):
    """One page of issues, newest (or as sorted) first."""

    state: Status | None = Field(description="The status listed; null for a search across every status.")
    sort: Sort | None = Field(description="The order used; null where the list has its own (a label's, a search).")
    looked_at: int = Field(
        description="Rows of the list checked for a filter it has no index for (0: none). A page may then hold "
        "fewer than `limit` issues, or none, and still have a next page."
    )


class HistoryLine(Schema):
    """One thing that happened to the issue, as its page's history says it."""

    at: datetime
    actor: str = Field(description="Who did it (username).")
    text: str = Field(description="What they did, a sentence without its subject: `changed the status from …`.")
    url: str | None = Field(description="A page elsewhere the line names (an imported issue's original).")


class HistoryPage(Page[HistoryLine]):
    """One page of an issue's history, newest first."""

    archived: bool = Field(description="Older history is archived (past the events' retention), not listed here.")


class HistoryParams(Schema):
    limit: int = Field(25, ge=1, le=LIMIT_MAX, description="Changes a page.")
    cursor: str | None = Field(None, max_length=2000, description="A page's `next_cursor`.")


def _invalid(field: str, message: str) -> ValidationError:
    """A 422 naming one query parameter, as ninja's own validation would."""
    return ValidationError([{"loc": ("query", field), "msg": message, "type": "invalid_filter"}])


def _query_of(filters: IssueFilters) -> IssueQuery:
    """``q`` parsed, with each filter given on its own in its place; a 422 naming what the list cannot use."""
    try:
        query = parse(filters.q)
    except QueryError as error:
        raise _invalid("q", str(error)) from error
    given: dict[str, str] = {}
    for name in ("assignee", "label", "milestone"):
        value = getattr(filters, name)
        if value is None:
            continue
        try:
            given[name] = PARSERS[name](value)
        except QueryError as error:
            raise _invalid(name, f"“{value}” {error}") from error
    if filters.state:
        given["status"] = filters.state
    if filters.sort:
        given["sort"] = filters.sort
    return replace(query, **given)


def _page(request: HttpRequest, response: HttpResponse, team: str, key: str | None, filters: IssueFilters) -> Any:
    membership = team_access(request, team)
    project_key = project_access(tenant=membership.tenant, key=key).project_key if key is not None else None
    query = _query_of(filters)
    try:
        listing = issue_listing(
            tenant=membership.tenant.slug,
            project_key=project_key,
            query=query,
            cursor=filters.cursor,
            username=membership.user.get_username(),
            size=filters.limit,
        )
    except QueryError as error:  # the milestone: not the project's, on a team-wide list, or with words
        raise _invalid("milestone" if filters.milestone else "q", str(error)) from error
    if query.sort and query.sort not in listing.sorts:
        offered = ", ".join(listing.sorts) or "none: it has its own order"
        raise _invalid("sort", f"This list does not sort by {query.sort} (it offers {offered}).")
    set_links(request, response, next_cursor=listing.next_cursor, prev_cursor=listing.previous_cursor)
    return {
        "items": [summary_of(issue) for issue in listing.issues],
        "next_cursor": listing.next_cursor,
        "prev_cursor": listing.previous_cursor,
        "state": listing.query.status,
        "sort": listing.query.sort,
        "looked_at": listing.looked_at,
    }


@router.get(
    "/teams/{team}/projects/{key}/issues",
    response=IssuePage,
    summary="A project's issues",
    openapi_extra=LIST_EXTRA,
)
def project_issues_list(
    request: HttpRequest, team: str, key: str, response: HttpResponse, filters: Query[IssueFilters]
) -> Any:
    """One page of the project's issues, filtered as its list page filters them."""
    return _page(request, response, team, key, filters)


@router.get("/teams/{team}/issues", response=IssuePage, summary="The team's issues", openapi_extra=LIST_EXTRA)
def team_issues_list(request: HttpRequest, team: str, response: HttpResponse, filters: Query[IssueFilters]) -> Any:
    """One page of the issues of every project of the team (no milestone: milestones are a project's)."""
    return _page(request, response, team, None, filters)


@router.get(
    "/teams/{team}/projects/{key}/issues/{number}",
    response={200: IssueOut, 304: None},
    summary="One issue",
    openapi_extra={
        **cost(
            requests="1 (GetItem); + 1 on a cold project cache; + 1 Query for a milestone's name on a cold cache",
            rcu="0.5 per 4 KB of the issue (a 10 KB description: 1.5); + 0.5 each cold cache",
            note="A 304 costs the same read: it saves bandwidth and rate limit, not DynamoDB.",
        ),
        "responses": {200: {"description": "OK", "headers": {"ETag": ETAG}}, 304: {"headers": {"ETag": ETAG}}},
    },
)
def issue_get(
    request: HttpRequest,
    team: str,
    key: str,
    response: HttpResponse,
    number: int = Path(..., ge=1, le=NUMBER_MAX),
    if_none_match: str | None = Header(None, alias="If-None-Match"),  # documented; read by not_modified
) -> Any:
    """One issue, whole. ETag: its version; `If-None-Match` with it → 304; a PATCH sends it as `If-Match`."""
    membership = team_access(request, team)
    project, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number)
    etag = etag_of(issue)
    if not_modified(request, etag):
        return not_modified_response(etag)
    response["ETag"] = etag
    names = milestone_names(tenant=project.tenant, project_key=project.project_key) if issue.milestone else {}
    return issue_out(issue, names)


@router.get(
    "/teams/{team}/projects/{key}/issues/{number}/history",
    response=HistoryPage,
    summary="An issue's history",
    openapi_extra=cost(
        requests="1 GetItem (the issue) + 1 Query per period table read (one, unless the page spans periods)",
        rcu="0.5 (the issue) + 0.5 per 4 KB of events read (25 changes ≈ 1)",
        note="Newest first; periods past retention are archived, not read (`archived`).",
    )
    | {"responses": {200: {"description": "OK", "headers": {"Link": LINK}}}},
)
def issue_history_list(
    request: HttpRequest,
    team: str,
    key: str,
    response: HttpResponse,
    params: Query[HistoryParams],
    number: int = Path(..., ge=1, le=NUMBER_MAX),
) -> Any:
    """What happened to the issue, newest first, as its page's history tells it."""
    membership = team_access(request, team)
    _, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number)
    page = issue_history_page(issue=issue, cursor=params.cursor, size=params.limit)
    set_links(request, response, next_cursor=page.older_cursor, prev_cursor=None)
    return {
        "items": [
            {"at": line.at, "actor": line.actor, "text": line.text, "url": line.url or None} for line in page.lines
        ],
        "next_cursor": page.older_cursor,
        "prev_cursor": None,
        "archived": page.archived,
    }
