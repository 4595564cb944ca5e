"""Comments as the issue page sees them: a page (oldest first) with signed cursors, a comment, who may be mentioned."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from ddbmodels import comments as ddb_comments
from ddbmodels.comments import SORT_KEY_RE, CommentItem
from ddbmodels.core.errors import InvalidInput
from ddbmodels.issues import IssueItem
from tracker.cursors import INVALID, open_signed, sign
from tracker.exceptions import BadCursor
from tracker.markdown import Mentions
from tracker.models import Tenant
from tracker.selectors.activity import issue_stream  # the comments' partition is the issue's stream
from tracker.selectors.tenants import tenant_usernames

_SALT = "tracker.comments.cursor"
OLDER, NEWER, LATEST = "older", "newer", "latest"


@dataclass(frozen=True)
class CommentListPage:
    comments: list[CommentItem]
    older_cursor: str | None  # the page before (older comments)
    newer_cursor: str | None  # the page after (newer comments)
    latest_cursor: str  # the newest page (where a new comment shows)


def comment_cursor(*, issue: IssueItem, direction: str, key: str | None = None) -> str:
    """A signed cursor of the issue's comments: ``older``/``newer`` than ``key``, or the ``latest`` page."""
    return sign(_SALT, listing=issue_stream(issue), d=direction, k=key)


def comment_list_page(*, issue: IssueItem, cursor: str | None) -> CommentListPage:
    """One page of the issue's comments, oldest first (Query, Limit 21 — ≈ 0.5 RCU per 4 KB read).

    No cursor: the oldest comments. Raises BadCursor for a tampered cursor or another issue's.
    """
    after = before = None
    latest = False
    if cursor:
        data = open_signed(cursor, kind=_SALT, listing=issue_stream(issue))
        direction, key = data.get("d"), data.get("k")
        if direction == LATEST:
            latest = True
        elif direction in (OLDER, NEWER) and isinstance(key, str) and SORT_KEY_RE.fullmatch(key):
            after, before = (key, None) if direction == NEWER else (None, key)
        else:
            raise BadCursor(INVALID)
    page = ddb_comments.comment_page(stream=issue_stream(issue), after=after, before=before, latest=latest)
    return CommentListPage(
        comments=page.comments,
        older_cursor=comment_cursor(issue=issue, direction=OLDER, key=page.older_than) if page.older_than else None,
        newer_cursor=comment_cursor(issue=issue, direction=NEWER, key=page.newer_than) if page.newer_than else None,
        latest_cursor=comment_cursor(issue=issue, direction=LATEST),
    )


def comment_access(*, issue: IssueItem, comment_id: str, consistent: bool = True) -> CommentItem:
    """The issue's comment by its id in a URL (GetItem, consistent — 1 RCU), or Http404."""
    try:
        key = ddb_comments.sort_key_of(comment_id)
    except InvalidInput as error:
        raise Http404("No such comment.") from error
    comment = ddb_comments.comment_get(stream=issue_stream(issue), key=key, consistent=consistent)
    if comment is None:
        raise Http404("No such comment.")
    return comment


def comment_current(*, issue: IssueItem, key: str) -> CommentItem | None:
    """The comment as stored now (GetItem, consistent — 1 RCU); None when it was deleted."""
    return ddb_comments.comment_get(stream=issue_stream(issue), key=key, consistent=True)


def team_mentions(*, tenant: Tenant) -> Mentions:
    """Who may be @mentioned in the team's markdown: every member, viewers included (one SQL query)."""
    return Mentions.of(tenant.slug, tenant_usernames(tenant=tenant, min_role="viewer"))
