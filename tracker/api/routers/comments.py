"""An issue's comments by API: the page of them, one, add (exactly once), edit and delete one's own.

The same selectors and services as the issue page: a page is one Query of the issue's comments (oldest first,
the page's signed cursors); adding goes through ``services.comments.comment_add`` (members and owners, only while
the issue is live, exactly once per ``Idempotency-Key``); editing and deleting are the author's only, conditioned on
the comment's version (``If-Match``: a stale one is a 412 with the comment as it is now, nothing written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Path, Query, Router, Schema
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ddbmodels.comments import check_body
from ddbmodels.core.errors import ChangedSinceRead
from tracker.api.access import require_scope, require_token_scope, team_access
from tracker.api.etag import etag_of, if_match, not_modified, not_modified_response, precondition_failed
from tracker.api.idempotency import key_header, run_once
from tracker.api.openapi import cost
from tracker.api.paging import set_links
from tracker.api.schemas import Page, as_sent
from tracker.selectors.comments import comment_access, comment_current, comment_list_page
from tracker.selectors.issues import project_issue_access
from tracker.services import comments as comment_services
from tracker.services import replays

if TYPE_CHECKING:
    from ddbmodels.comments import CommentItem
    from ddbmodels.issues import IssueItem
    from tracker.models import Membership

router = Router(tags=["comments"])

ISSUE = "/teams/{team}/projects/{key}/issues/{number}"
BODY_MAX = 10_000  # ddbmodels.comments.BODY_MAX (tests/tracker/api/test_comments_api.py fails if they part)
NUMBER_MAX = 10**15 - 1  # the pages' number converter: 1 to 15 digits
Number = Path(..., ge=1, le=NUMBER_MAX, description="The issue's number in the project.")


class CommentOut(Schema):
    """One comment of an issue."""

    id: str = Field(description="Its id in URLs: the time it was written and a random suffix.")
    author: str = Field(description="Who wrote it (username).")
    body: str = Field(description="Markdown, as stored (LF line ends, no blank lines around).")
    created_at: datetime
    updated_at: datetime
    edited: bool = Field(description="Changed since it was written.")
    version: int = Field(description="Goes up by one with every edit; the comment's ETag is its quoted value.")


class CommentPage(Page[CommentOut]):
    """A page of the issue's comments, oldest first: ``next_cursor`` is newer comments, ``prev_cursor`` older."""

    latest_cursor: str = Field(description="The cursor of the newest page (where a new comment shows).")


class CommentIn(BaseModel):
    """A comment's text (a new one, or the whole new text of an edit)."""

    model_config = ConfigDict(extra="forbid")

    body: str = Field(min_length=1, max_length=BODY_MAX, description="Markdown; mention a teammate with @name.")

    @field_validator("body")
    @classmethod
    def _some_text(cls, body: str) -> str:
        if not body.strip():
            raise ValueError("A comment needs some text.")
        return body


class PageQuery(Schema):
    cursor: str | None = Field(None, description="A cursor from a page of this list (`next_cursor`, …).")


def comment_out(comment: CommentItem) -> dict[str, Any]:
    """One comment, JSON-ready as every answer sends it (``as_sent``); reads nothing. The one renderer of every answer
    holding a stored comment (``first_comment``: a create's and its replays')."""
    return as_sent(
        CommentOut(
            id=comment.comment_id,
            author=comment.author,
            body=comment.body,
            created_at=comment.created_at,
            updated_at=comment.updated_at,
            edited=comment.edited,
            version=int(comment.version or 0),
        )
    )


def _issue(request: HttpRequest, team: str, key: str, number: int) -> tuple[Membership, IssueItem]:
    """The caller's membership (404 for another team) and the live issue the URL names (404)."""
    membership = team_access(request, team)
    _, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number)
    return membership, issue


@router.get(
    f"{ISSUE}/comments",
    response=CommentPage,
    summary="An issue's comments",
    openapi_extra=cost(
        requests="2 (3 with a project not cached)",
        rcu="0.5 (the issue) + 0.5 per 4 KB of the page (20 comments of ~300 B: 1) [+ 0.5 the project]",
        note="The issue's GetItem, then one Query of its comments, Limit 21.",
    ),
)
def comments_list(
    request: HttpRequest,
    team: str,
    key: str,
    response: HttpResponse,
    query: Query[PageQuery],
    number: int = Number,
) -> dict[str, Any]:
    """A page of the issue's comments, oldest first (20 a page), as the issue page shows them."""
    _, issue = _issue(request, team, key, number)
    page = comment_list_page(issue=issue, cursor=query.cursor)
    set_links(request, response, next_cursor=page.newer_cursor, prev_cursor=page.older_cursor)
    return {
        "items": [comment_out(comment) for comment in page.comments],
        "next_cursor": page.newer_cursor,
        "prev_cursor": page.older_cursor,
        "latest_cursor": page.latest_cursor,
    }


@dataclass(frozen=True)
class Made:
    """A comment a create added (or its key had added: ``replayed``): its id and the time it was added."""

    id: str
    added_at: datetime
    replayed: bool


def first_comment(made: Made, author: str, body: str) -> dict[str, Any]:
    """The answer of the POST that added the comment ``made`` from ``body``, and of every replay of it byte for byte,
    even after the comment was edited or deleted: from the request's text (stored as ``check_body`` stores it), its
    author (the caller: keys are per person), its id and the time it was added (to the millisecond, as every answer
    gives times), as it was added (version 1, not edited). Reads nothing."""
    return as_sent(
        CommentOut(
            id=made.id,
            author=author,
            body=check_body(body),
            created_at=made.added_at,
            updated_at=made.added_at,
            edited=False,
            version=1,
        )
    )


@router.post(
    f"{ISSUE}/comments",
    response={201: CommentOut},
    summary="Add a comment",
    openapi_extra=cost(
        requests="5: the key's record, the issue, the comment's transaction, its event, the commenter's watch (+ cold "
        "caches: the project, the team's webhooks); a replay 3: the key's record, the comment, the issue, + its "
        "recording again",
        rcu="1 (the key's record, consistent) + 0.5 (the issue); a replay 2.5 (the key's record and the comment, "
        "consistent, and the issue)",
        wcu="≈ 11 for a short comment (measured): 8 (issue check, comment and key record in one transaction) + 2 "
        "(its event) + 1 (watching); a replay only its recording again, which doubles nothing (the event's put "
        "refused: ≈ 1)",
        note="Exactly once per Idempotency-Key: the key's record is read first (a replay answers the first answer, "
        "even after the comment was edited or deleted), and written in the comment's own transaction.",
    ),
)
def comment_create(
    request: HttpRequest,
    team: str,
    key: str,
    payload: CommentIn,
    number: int = Number,
    idempotency_key: str | None = key_header(),
) -> HttpResponse:
    """Add a comment to the issue (members and owners: a `write` token). The answer is the comment (201) and its URL
    (`Location`); the same `Idempotency-Key` again answers the same, adding nothing."""
    membership = team_access(request, team)
    require_token_scope(request, "write")

    def replay(scoped: str, fingerprint: str) -> Made | None:
        found = replays.comment_replay(
            membership=membership,
            project_key=key,
            number=number,
            idempotency_key=scoped,
            fingerprint=fingerprint,
            body=payload.body,
        )
        return None if found is None else Made(found.comment_id, found.added_at, replayed=True)

    def create(scoped: str, fingerprint: str) -> Made:
        require_scope(request, "write")  # the role as it is now: a new comment's check, not a replay's
        _, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number)
        added = comment_services.comment_add(
            membership=membership, issue=issue, body=payload.body, idempotency_key=scoped, fingerprint=fingerprint
        )
        return Made(added.comment.comment_id, added.comment.created_at, replayed=added.replayed)

    def first_answer(made: Made) -> dict[str, Any]:
        return first_comment(made, membership.user.get_username(), payload.body)

    answer = run_once(
        request, membership=membership, kind="comment", replay=replay, create=create, first_answer=first_answer
    )
    if answer.status_code == 201:
        comment_id = json.loads(answer.content)["id"]
        answer["Location"] = request.build_absolute_uri(f"{request.path.rstrip('/')}/{comment_id}")
    return answer


COMMENT = f"{ISSUE}/comments/{{comment_id}}"


@router.get(
    COMMENT,
    response={200: CommentOut, 304: None},
    summary="One comment",
    openapi_extra=cost(
        requests="2 (3 with a project not cached)",
        rcu="0.5 (the issue) + 1 per 4 KB of the comment (consistent) [+ 0.5 the project]",
        note="A 304 (If-None-Match) costs the same reads: it saves bandwidth and the rate limit.",
    ),
)
def comment_get(
    request: HttpRequest, team: str, key: str, comment_id: str, response: HttpResponse, number: int = Number
) -> Any:
    """One comment of the issue as stored now, with its `ETag` (for `If-Match` on an edit or delete)."""
    _, issue = _issue(request, team, key, number)
    comment = comment_access(issue=issue, comment_id=comment_id)
    tag = etag_of(comment)
    if not_modified(request, tag):
        return not_modified_response(tag)
    response["ETag"] = tag
    return comment_out(comment)


def _own(
    request: HttpRequest, team: str, key: str, number: int, comment_id: str
) -> tuple[Membership, IssueItem, CommentItem]:
    """The caller (a `write` token), the live issue and its comment as stored now (consistent), or 404."""
    membership = team_access(request, team)
    require_scope(request, "write")
    _, issue = project_issue_access(tenant=membership.tenant, project_key=key, number=number)
    return membership, issue, comment_access(issue=issue, comment_id=comment_id)


def _stale(issue: IssueItem, comment: CommentItem, wanted: int | None) -> HttpResponse:
    """The 412 of an ``If-Match`` that no longer names the comment (a write refused on the version); re-raises the
    refusal when there was no ``If-Match`` (a race with another writer after the read: 409)."""
    if wanted is None:
        raise ChangedSinceRead("the comment changed while this request ran", key=comment.key)
    # The comment as read already differs from If-Match: it is the current one; else it changed after the read.
    current = comment if int(comment.version or 0) != wanted else comment_current(issue=issue, key=comment.key)
    if current is None:
        raise Http404("No such comment.")
    return precondition_failed(etag_of(current), comment_out(current))


@router.patch(
    COMMENT,
    response={200: CommentOut},
    summary="Edit your comment",
    openapi_extra=cost(
        requests="4: the issue, the comment, its update, its event (2 when the text is unchanged or If-Match is "
        "stale) [+ 1 the project]",
        rcu="0.5 (the issue) + 1 per 4 KB (the comment, consistent) [+ 0.5 the project]",
        wcu="1 per KB of the comment (UpdateItem on its version) + ≈ 2 (its event): 3 measured; 0 when unchanged",
        note="A stale If-Match is a 412 with the comment as it is now: nothing written.",
    ),
)
def comment_update(
    request: HttpRequest,
    team: str,
    key: str,
    comment_id: str,
    payload: CommentIn,
    response: HttpResponse,
    number: int = Number,
) -> Any:
    """Replace your comment's text (its author only: 403 for anybody else). With `If-Match: "<version>"` the edit
    applies only to that version (else 412 and the comment as it is now); the same text again changes nothing."""
    membership, issue, comment = _own(request, team, key, number, comment_id)
    wanted = if_match(request)
    try:
        saved = comment_services.comment_edit(
            membership=membership,
            issue=issue,
            comment=comment,
            expected_version=int(comment.version or 0) if wanted is None else wanted,
            body=payload.body,
        )
    except ChangedSinceRead:
        return _stale(issue, comment, wanted)
    response["ETag"] = etag_of(saved)
    return comment_out(saved)


@router.delete(
    COMMENT,
    response={204: None},
    summary="Delete your comment",
    openapi_extra=cost(
        requests="≈ 13 and more: the issue, the comment, its words out of its events (Query the issue's stream) and "
        "out of each watcher's notification, the delete, its event",
        rcu="0.5 (the issue) + 1 (the comment) + 0.5 per 4 KB of the issue's events and watchers read (3 measured)",
        wcu="1 per KB of the comment + its events' and notifications' rewrites + ≈ 2 (the deletion's event): 5+",
        note="A stale If-Match is a 412 with the comment as it is now: nothing deleted.",
    ),
)
def comment_remove(request: HttpRequest, team: str, key: str, comment_id: str, number: int = Number) -> HttpResponse:
    """Delete your comment (its author only: 403 for anybody else); its words leave the issue's history and the
    notifications that quoted them. With `If-Match: "<version>"` only that version is deleted (else 412)."""
    membership, issue, comment = _own(request, team, key, number, comment_id)
    wanted = if_match(request)
    try:
        comment_services.comment_delete(
            membership=membership,
            issue=issue,
            comment=comment,
            expected_version=int(comment.version or 0) if wanted is None else wanted,
        )
    except ChangedSinceRead:
        return _stale(issue, comment, wanted)
    return HttpResponse(status=204)
