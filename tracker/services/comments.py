"""Comment writes: members and owners add; authors edit and delete their own. Each one is an activity event.

The event (``activity.record``) has one shape for all three kinds, which the inbox fan-out reads:
``{"comment": <sort key>, "mentions": [members mentioned], "excerpt": <first 140 characters>}``,
the excerpt in plain words (the markdown's formatting stripped: ``**only**`` is ``only``).
``mentions`` are the members the new text mentions: all of them for a new comment, only the
newly mentioned ones for an edit (nobody is told twice), none for a deletion, whose excerpt is
empty too. A deleted comment's words do not live on: deleting takes the excerpt out of its
``comment.added``/``comment.edited`` events and out of the notifications that quoted it
(``tracker.services.deleting``; issue 20, finding 9).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from ddbmodels import comments, events, issues
from ddbmodels.comments import Added, CommentItem
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from tracker.markdown import mentioned, plain_text
from tracker.models import Membership
from tracker.selectors.comments import team_mentions
from tracker.services import activity, deleting
from tracker.services.permissions import require_role

EXCERPT_CHARS = 140


def _event(comment: CommentItem, *, mentions: list[str], excerpt: str) -> dict[str, object]:
    return {"comment": comment.key, "mentions": mentions, "excerpt": plain_text(excerpt)[:EXCERPT_CHARS]}


def _require_author(membership: Membership, comment: CommentItem) -> None:
    require_role(membership, "member")
    if comment.author != membership.user.get_username():
        raise PermissionDenied("Only its author can change a comment.")


def comment_add(
    *,
    membership: Membership,
    issue: IssueItem,
    body: str,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
) -> Added:
    """Add a comment (members and owners); the same ``idempotency_key`` again adds nothing (``replayed``) and records
    it again under the comment's own event key, which doubles nothing (``activity.record``'s ``key``).
    With ``fingerprint`` (the API's), the key sent with another request raises KeyReused, nothing written.

    The comment is written only while the issue is not deleted, in the same transaction (a ConditionCheck
    of the issue): on a deleted issue IssueDeleted is raised and nothing is written, recorded or sent.
    """
    require_role(membership, "member")
    author = membership.user.get_username()
    added = comments.comment_add(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        author=author,
        body=body,
        idempotency_key=idempotency_key,
        fingerprint=fingerprint,
        issue_check=issues.issue_live_check(
            tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number)
        ),
    )
    # A replay of the API's request (its fingerprint kept: the same request) records the body it sent.
    record_added(
        membership, issue, added.comment, body=body if added.replayed and fingerprint else None, replay=added.replayed
    )
    return added


def record_added(
    membership: Membership, issue: IssueItem, comment: CommentItem, *, body: str | None = None, replay: bool = False
) -> None:
    """Record a new comment (its ``comment.added`` event and what follows it), as its add or a replay of it does
    (``comment_add``, ``services.replays.comment_replay``).

    A replay records it again: its first request may have written the comment and stopped before recording it (a
    lost answer, then a 503: R22-1). The comment's own key (its time and request token) makes it one event, one
    notification per person and one webhook delivery per endpoint however often it is recorded.

    ``body``: what the request sent (a replay of an API request, the same by its fingerprint): the event's excerpt
    and mentions are the comment's as added, not as edited since (R2-4); None: the comment's own.

    ``replay``: a comment added before the creation events had their key (``events.keyed_by_creation``) is not
    recorded again: its first request recorded it under another key, which a second recording would double (R2-3).
    """
    if replay and not events.keyed_by_creation(comment.created_at):
        return
    said = comment.body if body is None else comments.check_body(body)
    who = mentioned(said, team_mentions(tenant=membership.tenant))
    activity.record(
        issue,
        kind=Kind.COMMENT_ADDED,
        actor=comment.author,
        data=_event(comment, mentions=who, excerpt=said),
        key=events.creation_key(comment.created_at, comment.request or f"{comment.stream}#{comment.key}"),
    )


def comment_edit(
    *, membership: Membership, issue: IssueItem, comment: CommentItem, expected_version: int, body: str
) -> CommentItem:
    """Save the author's edit made on ``expected_version``; ChangedSinceRead when it is no longer current.

    A text that is the stored one (once stored as every body is: LF line ends, no blank lines
    around) writes nothing and records nothing: the comment is not marked edited.
    """
    _require_author(membership, comment)
    if int(comment.version or 0) != expected_version:
        raise ChangedSinceRead(
            "the comment changed since it was loaded", current=comment.body, wanted=body, key=comment.key
        )
    if comments.check_body(body) == comment.body:
        return comment
    team = team_mentions(tenant=membership.tenant)
    before = set(mentioned(comment.body, team))
    comment = comments.comment_edit(comment, body=body, by=membership.user.get_username())
    new = [name for name in mentioned(comment.body, team) if name not in before]
    activity.record(
        issue,
        kind=Kind.COMMENT_EDITED,
        actor=membership.user.get_username(),
        data=_event(comment, mentions=new, excerpt=comment.body),
    )
    return comment


def comment_delete(*, membership: Membership, issue: IssueItem, comment: CommentItem, expected_version: int) -> None:
    """Delete the author's comment as loaded at ``expected_version``; ChangedSinceRead when edited since.

    Its text goes from the comments table, its events and its notifications (``deleting.comment_forget``).
    """
    _require_author(membership, comment)
    if int(comment.version or 0) != expected_version:
        raise ChangedSinceRead("the comment changed since it was loaded", current=comment.body, key=comment.key)
    # Its words leave its events and the notifications that quoted them first (tracker.services.deleting):
    # a request cut short leaves the comment there, and deleting it again finishes the work.
    deleting.comment_forget(issue=issue, comment=comment, by=membership.user.get_username())
    comments.comment_delete(comment, by=membership.user.get_username())
    activity.record(
        issue,
        kind=Kind.COMMENT_DELETED,
        actor=membership.user.get_username(),
        data=_event(comment, mentions=[], excerpt=""),
    )
