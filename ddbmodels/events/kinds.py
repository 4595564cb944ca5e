"""Every kind of event an issue's stream holds, in one registry: what each means, carries, and who is told.

Writers (``tracker.services``: issues, comments, attachments; the demo) record events of these
kinds; readers (the history's sentences, the inbox's wording and fan-out, the search index)
branch on them. ``event_item`` refuses a kind that is not here, so a new kind is registered
before it can be written (a test writes every kind the code names, and reads each back as words).
A ``Kind`` is a ``str``: stored, queued and compared as ``"issue.created"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    ISSUE_CREATED = "issue.created"
    ISSUE_EDITED = "issue.edited"
    ISSUE_STATUS = "issue.status"
    ISSUE_DELETED = "issue.deleted"
    COMMENT_ADDED = "comment.added"
    COMMENT_EDITED = "comment.edited"
    COMMENT_DELETED = "comment.deleted"
    ATTACHMENT_ADDED = "attachment.added"
    ATTACHMENT_REMOVED = "attachment.removed"
    ISSUE_LABELS_RENAMED = "issue.labels_renamed"


@dataclass(frozen=True)
class KindInfo:
    """What an event of a kind means, the keys its ``data`` may carry, and whether watchers are told."""

    meaning: str
    carries: tuple[str, ...]
    notifies: bool  # reaches the watchers' inboxes (and e-mail)


KINDS: dict[Kind, KindInfo] = {
    Kind.ISSUE_CREATED: KindInfo("an issue was opened", ("title",), notifies=True),
    Kind.ISSUE_EDITED: KindInfo(
        "title, priority, assignee, description or labels changed",
        # changed: {field: [before, after]}; description: True; labels: {added, removed}; excerpt: the
        # new description, added by the fan-out only; diff: the description's word diff (tracker.text_diff, ≤ 2 KB);
        # diff_removed_by: set when the editor or an owner took the diff out (tracker.services.deleting)
        ("changed", "description", "labels", "excerpt", "diff", "diff_removed_by"),
        notifies=True,
    ),
    Kind.ISSUE_STATUS: KindInfo("the status moved", ("from", "to"), notifies=True),
    Kind.ISSUE_DELETED: KindInfo("the issue was deleted (a tombstone)", ("labels",), notifies=True),
    # deleted_by: set when the comment is deleted, and the excerpt taken out (tracker.services.deleting)
    Kind.COMMENT_ADDED: KindInfo(
        "a comment was posted", ("comment", "mentions", "excerpt", "deleted_by"), notifies=True
    ),
    Kind.COMMENT_EDITED: KindInfo(
        "a comment was edited", ("comment", "mentions", "excerpt", "deleted_by"), notifies=True
    ),
    Kind.COMMENT_DELETED: KindInfo("a comment was deleted", ("comment", "mentions", "excerpt"), notifies=False),
    Kind.ATTACHMENT_ADDED: KindInfo("a file was attached", ("filename", "size"), notifies=True),
    Kind.ATTACHMENT_REMOVED: KindInfo("a file was detached", ("filename",), notifies=False),
    # A team's label renamed (``to`` the new name) or deleted (``to`` empty) on the labels page: each of its issues
    # records one. labels: {added, removed} as in an edit (the search document's label entries follow).
    Kind.ISSUE_LABELS_RENAMED: KindInfo(
        "a label of the team was renamed or deleted, and this issue followed", ("from", "to", "labels"), notifies=False
    ),
}
NOTIFY_KINDS = frozenset(kind for kind, info in KINDS.items() if info.notifies)


def is_kind(value: object) -> bool:
    """True for a registered kind (``Kind`` or its string)."""
    return isinstance(value, str) and value in KINDS


# What a webhook delivery's ``type`` says for each kind: the names integrators know from GitHub's and Stripe's
# events (``<resource>.<past tense>``), stable once published — a kind is renamed in the stream, never here.
WEBHOOK_EVENTS: dict[Kind, str] = {
    Kind.ISSUE_CREATED: "issue.created",
    Kind.ISSUE_EDITED: "issue.updated",
    Kind.ISSUE_STATUS: "issue.status_changed",
    Kind.ISSUE_DELETED: "issue.deleted",
    Kind.COMMENT_ADDED: "comment.created",
    Kind.COMMENT_EDITED: "comment.updated",
    Kind.COMMENT_DELETED: "comment.deleted",
    Kind.ATTACHMENT_ADDED: "attachment.created",
    Kind.ATTACHMENT_REMOVED: "attachment.deleted",
    Kind.ISSUE_LABELS_RENAMED: "issue.labels_renamed",
}
