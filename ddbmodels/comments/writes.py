"""Writing comments: added exactly once, edited and deleted by their author under optimistic locking.

Every write is conditional. ``comment_add`` puts a new key (``attribute_not_exists``); the item
carries the call's random token, so a put refused on our own committed item (botocore retried
after a lost answer) is told from anything else by one consistent GetItem, on that path only.
With an idempotency key (the form's) the put is a transaction with the key's record, so the same
form sent twice adds one comment. ``comment_edit`` and ``comment_delete`` are conditioned on the
version the author loaded (and on the author): a stale one raises ChangedSinceRead; a refused
write is re-read once to tell our own retried success from somebody's change.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pynamodb.exceptions import DeleteError, PutError, TransactWriteError, UpdateError

from ddbmodels.comments.model import BODY_MAX, CommentItem, comment_id, issue_stream, new_sort_key, sort_key_time
from ddbmodels.comments.reads import comment_get
from ddbmodels.core import batch, capacity
from ddbmodels.core.errors import (
    AlreadyExists,
    ChangedSinceRead,
    InvalidInput,
    IssueDeleted,
    KeyUsed,
    is_conditional_failure,
    response_code,
)
from ddbmodels.core.exactly_once import lost_in_transaction, put_with_record, reason_codes
from ddbmodels.core.keys import utcnow
from ddbmodels.idempotency import CreationRecord, check_fingerprint, check_unused, new_record, record_get


@dataclass(frozen=True)
class Added:
    """The comment a call added, or (``replayed``) the one an earlier call with the same key added."""

    comment: CommentItem
    replayed: bool = False


def idempotency_kind(project_key: str, number: int) -> str:
    """The kind of an idempotency record of a comment form: ``comment#<PROJECT>#<number>``."""
    return f"comment#{project_key}#{int(number)}"


def check_body(body: str) -> str:
    """The body to store (``\\n`` line ends, no blank lines around); InvalidInput when empty or too long."""
    text = body.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    if not text.strip():
        raise InvalidInput("A comment needs some text.")
    if len(text) > BODY_MAX:
        raise InvalidInput(f"A comment holds at most {BODY_MAX:,} characters; this one has {len(text):,}.")
    return text


@capacity.access_pattern("comments.add")
def comment_add(
    *,
    tenant: str,
    project_key: str,
    number: int,
    author: str,
    body: str,
    idempotency_key: str | None = None,
    issue_check: dict[str, Any] | None = None,
    fingerprint: str | None = None,
) -> Added:
    """PutItem if attribute_not_exists(t) — 1 WCU per started KB of the comment.

    With ``issue_check`` (the site always passes it: ``issues.issue_live_check``, the issue exists and is
    not a tombstone), the put is a TransactWriteItems [ConditionCheck issue, Put comment]: a comment on a
    deleted issue raises IssueDeleted and nothing is written (issue 20, finding 9). It costs the check as a
    transactional write of the issue's size plus the comment's put doubled: 2 WCU per started KB of each,
    4 WCU for a ≤ 1 KB issue and comment (1 WCU before the check).

    With ``idempotency_key``: TransactWriteItems [(ConditionCheck issue), Put comment, Put its idempotency
    record], each ``attribute_not_exists`` — 2 × (issue + comment + record) WCU: measured on DynamoDB Local
    for a short comment, 8 WCU with the check, 6 without (tests/ddbmodels/comments). A key that
    already added a comment returns that comment, ``replayed``, after 2 consistent GetItems
    (2 RCU), writing nothing. A refused or unanswered write reads the key it tried (GetItem,
    consistent, 1 RCU, on that path only): our token there means it committed (a lost answer).
    Raises InvalidInput for an empty or too long body (nothing is written). ``fingerprint`` (the API's request
    fingerprint) is kept on the key's record; the same key with another fingerprint raises KeyReused on the
    replay path, nothing written.
    """
    checks = [issue_check] if issue_check is not None else None
    text = check_body(body)
    now = utcnow()
    request = uuid.uuid4().hex
    item = CommentItem(
        stream=issue_stream(tenant, project_key, number),
        key=new_sort_key(now),
        author=author,
        body=text,
        created_at=now,
        updated_at=now,
        request=request,
    )
    kind = idempotency_kind(project_key, number)
    try:
        if idempotency_key is None and checks is None:
            item.save(condition=CommentItem.key.does_not_exist())
        elif idempotency_key is None:
            put_with_record(item, None, CommentItem.key.does_not_exist(), checks=checks)
        else:
            check_unused(tenant=tenant, kind=kind, key=idempotency_key)  # a form sent before the upgrade
            record = new_record(
                tenant=tenant, kind=kind, key=idempotency_key, result=item.key, request=request, fingerprint=fingerprint
            )
            put_with_record(item, record, CommentItem.key.does_not_exist(), checks=checks)
    except KeyUsed:
        assert idempotency_key is not None
        return _replayed(item.stream, record_get(tenant=tenant, kind=kind, key=idempotency_key), request, fingerprint)
    except (PutError, TransactWriteError) as error:
        refused = is_conditional_failure(error) or lost_in_transaction(error)
        unanswered = response_code(error) is None  # every answer lost: did it land?
        if refused or unanswered:
            stored = comment_get(stream=item.stream, key=item.key, consistent=True)
            if stored is not None and stored.request == request:
                return Added(comment=stored)  # ours: botocore retried after the answer was lost
        if checks and isinstance(error, TransactWriteError) and reason_codes(error)[:1] == ["ConditionalCheckFailed"]:
            raise IssueDeleted("the issue was deleted", stream=item.stream) from error
        if refused:  # 48 random bits collided within one millisecond on one issue: never silent
            raise AlreadyExists("comment key taken", stream=item.stream, key=item.key) from error
        raise
    return Added(comment=item)


@dataclass(frozen=True)
class Recorded:
    """What a key already added: the comment's sort key (its id and creation time), and the comment as it is now
    (None when its author deleted it since)."""

    key: str
    comment: CommentItem | None

    @property
    def comment_id(self) -> str:
        return comment_id(self.key)

    @property
    def added_at(self) -> datetime:
        """When it was added, to the millisecond (its sort key's time)."""
        return sort_key_time(self.key)


@capacity.access_pattern("comments.replay")
def comment_replay(
    *, tenant: str, project_key: str, number: int, idempotency_key: str, fingerprint: str | None = None
) -> Recorded | None:
    """GetItem the key's record, consistent — 1 RCU; when there is one, GetItem the comment it names, consistent —
    1 RCU per 4 KB. None (nothing more read) when the key added nothing: the caller may check and add.

    Read before anything else, so a request sent again is answered what it added whatever changed since (the
    API's creates, R22-3), even when the comment was deleted since. KeyReused when the key was used with another
    ``fingerprint``.
    """
    record = record_get(tenant=tenant, kind=idempotency_kind(project_key, number), key=idempotency_key)
    if record is None:
        return None
    check_fingerprint(record, fingerprint)
    stream = issue_stream(tenant, project_key, number)
    return Recorded(key=record.result, comment=comment_get(stream=stream, key=record.result, consistent=True))


def _replayed(stream: str, record: CreationRecord | None, request: str, fingerprint: str | None) -> Added:
    """The comment an idempotency record names (GetItem, consistent: 1 RCU); ``replayed`` unless it was ours.

    KeyReused (before the read) when the record was written for another request's ``fingerprint``.
    """
    if record is None:  # expired between the refused write and this read: vanishingly rare, never silent
        raise AlreadyExists("this form was already submitted", stream=stream)
    check_fingerprint(record, fingerprint)
    comment = comment_get(stream=stream, key=record.result, consistent=True)
    if comment is None:  # its author deleted it since: the form still must not add it again
        raise AlreadyExists("this form was already submitted; its comment was deleted since", stream=stream)
    return Added(comment=comment, replayed=record.request != request)


@capacity.access_pattern("comments.edit")
def comment_edit(comment: CommentItem, *, body: str, by: str) -> CommentItem:
    """UpdateItem b, ua if v = the loaded version and a = ``by`` — 1 WCU per started KB of the comment.

    Raises ChangedSinceRead when the comment changed (or went) since it was loaded, InvalidInput
    for a body that cannot be stored or a comment that is not ``by``'s. A refused update is
    re-read once (GetItem, consistent, 1 RCU): when it holds exactly this edit, botocore retried
    our committed write after its answer was lost, and that is success.
    """
    if comment.author != by:
        raise InvalidInput("only its author edits a comment", key=comment.key)
    text = check_body(body)
    loaded = int(comment.version or 0)
    now = utcnow()
    try:
        comment.update(
            actions=[CommentItem.body.set(text), CommentItem.updated_at.set(now)], condition=CommentItem.author == by
        )
    except UpdateError as error:
        if not is_conditional_failure(error):
            raise
        stored = comment_get(stream=comment.stream, key=comment.key, consistent=True)
        if stored is not None and int(stored.version) == loaded + 1 and stored.updated_at == now:
            return stored  # our own update, answered too late
        raise ChangedSinceRead(
            "the comment changed since it was loaded",
            current=None if stored is None else stored.body,
            wanted=text,
            key=comment.key,
        ) from error
    return comment


@capacity.access_pattern("comments.delete")
def comment_delete(comment: CommentItem, *, by: str) -> None:
    """DeleteItem if v = the loaded version and a = ``by`` — 1 WCU per started KB of the comment.

    Raises ChangedSinceRead when the comment was edited since it was loaded (it stays),
    InvalidInput when it is not ``by``'s. A comment already gone is not an error: deleting is
    what was asked, and a refused delete that finds nothing (GetItem, consistent, 1 RCU) was our
    own, retried by botocore after its answer was lost, or the same author's in another tab.
    """
    if comment.author != by:
        raise InvalidInput("only its author deletes a comment", key=comment.key)
    try:
        comment.delete(condition=CommentItem.author == by)
    except DeleteError as error:
        if not is_conditional_failure(error):
            raise
        stored = comment_get(stream=comment.stream, key=comment.key, consistent=True)
        if stored is None:
            return
        raise ChangedSinceRead(
            "the comment changed since it was loaded", current=stored.body, wanted=None, key=comment.key
        ) from error


def comments_put_many(comments: Iterable[CommentItem]) -> int:
    """BatchWriteItem, 25 requests each — 1 WCU per started KB of every comment; the number written.

    Unconditional puts of comments whose keys the caller fixed (an import, the demo's story): the
    same comments written twice overwrite and add nothing.
    """
    return batch.batch_write(batch.put(CommentItem.Meta.table_name, c.serialize()) for c in comments)


@capacity.access_pattern("comments.delete_all")
def comments_delete_all(*, stream: str) -> int:
    """Query PK = issue, consistent (keys only asked but whole items charged: 1 RCU per started 4 KB), then
    BatchWriteItem DeleteRequests, 25 a request — 1 WCU per started KB of each comment. How many were deleted.

    For deleting an issue: its whole collection goes, 100 at a time (deleted before the next hundred is
    read: a consistent read never returns them again), so a run cut short is resumed by running it
    again; comments added meanwhile go too.
    """
    deleted = 0
    while True:
        found = CommentItem.query(stream, attributes_to_get=["s", "t"], limit=100, consistent_read=True)
        keys = [item.key for item in found]
        if not keys:
            return deleted
        table = CommentItem.Meta.table_name
        deleted += batch.batch_write(batch.delete(table, {"s": {"S": stream}, "t": {"S": key}}) for key in keys)
