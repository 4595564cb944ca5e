"""Issues as views see them: one issue, or one page of a project's issues with cursors."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from ddbmodels import attachments as ddb_attachments
from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels.issues import STATUSES, IssueItem, ProjectItem
from tracker import cursors
from tracker.models import Tenant
from tracker.selectors.projects import project_access

PAGE_SIZE = 25


@dataclass(frozen=True)
class IssueListPage:
    issues: list[IssueItem]
    next_cursor: str | None
    previous_cursor: str | None


def issue_access(*, project: ProjectItem, number: int, consistent: bool = False) -> IssueItem:
    """The project's issue, or Http404 (missing, tombstoned, or not this project's)."""
    issue = ddb_issues.issue_get(
        tenant=project.tenant, project_key=project.project_key, number=number, consistent=consistent
    )
    if issue is None or issue.is_tombstone:
        raise Http404("No such issue.")
    return issue


def project_issue_access(
    *, tenant: Tenant, project_key: str, number: int, consistent: bool = False
) -> tuple[ProjectItem, IssueItem]:
    """The team's project and live issue a URL names, or Http404 (the project first: cached, then one GetItem)."""
    project = project_access(tenant=tenant, key=project_key)
    return project, issue_access(project=project, number=number, consistent=consistent)


def issue_exists(*, tenant: str, project_key: str, number: int) -> bool:
    """Is there a live issue ``<project_key>-<number>`` in the team? GetItem — 0.5 RCU (for a jump to it)."""
    issue = ddb_issues.issue_get(tenant=tenant, project_key=project_key, number=number)
    return issue is not None and not issue.is_tombstone


def issue_deleted(*, tenant: str, project_key: str, number: int) -> bool:
    """Is ``<project_key>-<number>`` a deleted issue of the team (a tombstone)? GetItem — 0.5 RCU (for its 410)."""
    issue = ddb_issues.issue_get(tenant=tenant, project_key=project_key, number=number)
    return issue is not None and issue.is_tombstone


def issue_list_page(*, project: ProjectItem, status: str | None, cursor: str | None) -> IssueListPage:
    """One page of a project's live issues, newest first, for staff (the admin's project page).

    With a status: one Query of the ``project_status`` index (the end users' list). Without: a
    Query of the whole collection skipping tombstones — it reads the tombstones it skips (an
    owner's rare deletions), the staff's look at every status at once. Cursors are signed and
    bound to this listing.

    Raises BadCursor for a cursor that is tampered with or belongs to another listing.
    """
    if status not in (None, "", *STATUSES):
        raise ValueError(f"unknown status {status!r}")
    listing = f"{project.pk}|{status or ''}"
    if status:
        return _status_page(project=project, status=status, cursor=cursor, listing=listing)
    position = cursors.decode(cursor, listing=listing)
    page = ddb_issues.issue_page(
        tenant=project.tenant,
        project_key=project.project_key,
        status=status or None,
        size=PAGE_SIZE,
        after=position.after if position else None,
        direction=position.direction if position else "older",
    )

    def link(after: int | None, direction: str) -> str | None:
        if after is None:
            return None
        return cursors.encode(listing=listing, after=after, direction=direction)

    return IssueListPage(
        issues=page.items,
        next_cursor=link(page.older_than, "older"),
        previous_cursor=link(page.newer_than, "newer"),
    )


def issue_number_next(*, project: ProjectItem) -> int:
    """The number the project's next issue will get (Query, Limit 1, consistent — 1 RCU); tombstones count."""
    return ddb_issues.issue_number_next(tenant=project.tenant, project_key=project.project_key)


def _status_page(*, project: ProjectItem, status: str, cursor: str | None, listing: str) -> IssueListPage:
    position = cursors.decode_key(cursor, listing=listing)
    page = ddb_issues.status_list(
        tenant=project.tenant,
        project_key=project.project_key,
        status=status,
        size=PAGE_SIZE,
        start=position.key if position else None,
        backwards=position.backwards if position else False,
    )

    def link(key: dict[str, object] | None, backwards: bool) -> str | None:
        return cursors.encode_key(listing=listing, key=key, backwards=backwards) if key else None

    return IssueListPage(
        issues=page.issues, next_cursor=link(page.next_key, False), previous_cursor=link(page.prev_key, True)
    )


@dataclass(frozen=True)
class DeletePreview:
    """What deleting an issue removes, for the page that asks first: its comments and its files by name."""

    comments: int
    files: list[str]


def issue_delete_preview(*, issue: IssueItem) -> DeletePreview:
    """Query COUNT of its comments + one Query of its attachments — 0.5 RCU per started 4 KB read each."""
    stream = ddb_comments.issue_stream(issue.tenant, issue.project_key, int(issue.number))
    listed = ddb_attachments.attachment_list(
        tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number)
    )
    return DeletePreview(comments=ddb_comments.comment_count(stream=stream), files=[item.filename for item in listed])
