"""Attachment state transitions, each one conditional write on the state it leaves.

    (new) ──PutItem──▶ Attaching ──▶ Attached ──▶ Detaching ──▶ Detached
                           └──────▶ Failed

Entering Attaching or Detaching sets the sparse ``in_flight`` index keys, leaving it REMOVEs
them in the same UpdateItem (``patterns.sparse_index``). A transition the state does not allow
writes nothing and raises ChangedSinceRead naming the state the item is really in (read
with one consistent GetItem, on that path only): DynamoDB charges the refused conditional write
(1 WCU per KB) and the GetItem costs 1 RCU.
"""

from __future__ import annotations

from pynamodb.exceptions import PutError
from pynamodb.expressions.condition import Condition

from ddbmodels.attachments.model import (
    ATTACHED,
    ATTACHING,
    DETACHED,
    DETACHING,
    FAILED,
    IN_FLIGHT,
    AttachmentItem,
    issue_key,
    new_attachment_id,
    storage_name,
)
from ddbmodels.attachments.reads import attachment_get_by_key
from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, InvalidTransition, response_code
from ddbmodels.core.keys import utcnow
from ddbmodels.patterns import sparse_index


class AlreadyBegun(AlreadyExists, code="attachment_begun"):
    """An earlier submission of the same form began this attachment (``item``, as it is now)."""

    def __init__(self, message: str = "", *, item: AttachmentItem) -> None:
        super().__init__(message, attachment_id=item.attachment_id)
        self.item = item


@capacity.access_pattern("attachments.transition")
def attachment_begin(
    *,
    tenant: str,
    project_key: str,
    number: int,
    filename: str,
    size: int,
    sha256: str,
    content_type: str,
    by: str,
    attachment_id: str | None = None,
) -> AttachmentItem:
    """PutItem in Attaching with the in_flight keys, if attribute_not_exists(pk) — 1 WCU + 1 WCU (index).

    ``filename`` must already be clean (``attachments.clean_filename``). ``attachment_id`` (a
    ULID the caller made when its form was rendered: the idempotency key) makes the put
    idempotent at no extra write: when an item with that id already holds the same file from the
    same person — botocore's retry after a lost answer, or the same form submitted again — that
    item is returned as it is now (GetItem, consistent, +1 RCU on that path only): the item
    itself when this call's put committed, in AlreadyBegun (``.item``) when an earlier call's did.
    """
    now = utcnow()
    attachment_id = attachment_id or new_attachment_id()
    item = AttachmentItem(
        pk=issue_key(tenant, project_key, number),
        attachment_id=attachment_id,
        state=ATTACHING,
        filename=filename,
        storage_name=storage_name(tenant, project_key, number, attachment_id, filename),
        size=size,
        sha256=sha256,
        content_type=content_type,
        attached_by=by,
        created_at=now,
        updated_at=now,
    )
    try:
        sparse_index.put_entering(
            IN_FLIGHT, item, state=ATTACHING, at=now, condition=AttachmentItem.pk.does_not_exist()
        )
    except PutError as error:
        if response_code(error) is not None:
            raise
        stored = attachment_get_by_key(item.pk, attachment_id, consistent=True)  # no answer came: did it land?
        if stored is None or stored.created_at != now:
            raise
        return stored
    except InvalidTransition as error:
        stored = attachment_get_by_key(item.pk, attachment_id, consistent=True)
        if stored is not None and (stored.sha256, stored.attached_by, stored.size) == (sha256, by, size):
            if stored.created_at == now:
                return stored  # our own put: botocore retried it after its answer was lost
            raise AlreadyBegun("this form was already submitted", item=stored) from error
        # 80 random bits collided (astronomically unlikely), or a key reused for another file: never silent
        raise ChangedSinceRead("attachment id taken", current=None, wanted=ATTACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_complete(item: AttachmentItem, *, same_visit: bool = False) -> AttachmentItem:
    """UpdateItem st=Attached REMOVE gp, gs, if st = Attaching — 1 WCU + 1 WCU (index entry deleted).

    ``same_visit``: also require the entry time this copy carries, so a writer whose item was
    claimed by the repair job meanwhile (``attachment_claim``) is refused.
    """
    condition = AttachmentItem.state == ATTACHING
    if same_visit:
        condition &= IN_FLIGHT.entered_at(item)
    return _leave(
        item, ATTACHED, condition, [AttachmentItem.state.set(ATTACHED), AttachmentItem.updated_at.set(utcnow())]
    )


@capacity.access_pattern("attachments.transition")
def attachment_claim(item: AttachmentItem, *, reason: str) -> AttachmentItem:
    """UpdateItem SET gs=now, rs if st = Attaching and gs unchanged — 1 WCU + 2 WCU (index key moved).

    A stuck attach is claimed before anything is deleted: the uploader, if it is somehow still
    at work, completes only on the entry time it knows, and is refused from now on.
    """
    condition = (AttachmentItem.state == ATTACHING) & IN_FLIGHT.entered_at(item)
    try:
        sparse_index.enter(
            IN_FLIGHT,
            item,
            state=ATTACHING,
            at=utcnow(),
            condition=condition,
            actions=[AttachmentItem.reason.set(reason)],
        )
    except InvalidTransition as error:
        raise _refused(item, ATTACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_fail(item: AttachmentItem, *, reason: str) -> AttachmentItem:
    """UpdateItem st=Failed, rs REMOVE gp, gs, if st = Attaching and gs unchanged — 1 WCU + 1 WCU."""
    condition = (AttachmentItem.state == ATTACHING) & IN_FLIGHT.entered_at(item)
    actions = [
        AttachmentItem.state.set(FAILED),
        AttachmentItem.reason.set(reason),
        AttachmentItem.updated_at.set(utcnow()),
    ]
    return _leave(item, FAILED, condition, actions)


@capacity.access_pattern("attachments.transition")
def attachment_detach_begin(item: AttachmentItem, *, by: str) -> AttachmentItem:
    """UpdateItem st=Detaching, db SET gp, gs, if st = Attached — 1 WCU + 1 WCU (index entry added)."""
    now = utcnow()
    actions = [
        AttachmentItem.state.set(DETACHING),
        AttachmentItem.detached_by.set(by),
        AttachmentItem.updated_at.set(now),
    ]
    try:
        sparse_index.enter(
            IN_FLIGHT, item, state=DETACHING, at=now, condition=AttachmentItem.state == ATTACHED, actions=actions
        )
    except InvalidTransition as error:
        raise _refused(item, DETACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_detach_complete(item: AttachmentItem) -> AttachmentItem:
    """UpdateItem st=Detached REMOVE gp, gs, if st = Detaching — 1 WCU + 1 WCU (index entry deleted)."""
    return _leave(
        item,
        DETACHED,
        AttachmentItem.state == DETACHING,
        [AttachmentItem.state.set(DETACHED), AttachmentItem.updated_at.set(utcnow())],
    )


def _leave(item: AttachmentItem, to: str, condition: Condition, actions: list) -> AttachmentItem:
    try:
        sparse_index.leave(IN_FLIGHT, item, condition=condition, actions=actions)
    except InvalidTransition as error:
        raise _refused(item, to) from error
    return item


def _refused(item: AttachmentItem, wanted: str) -> ChangedSinceRead:
    """The error for a refused transition, with the state read now — GetItem, consistent: 1 RCU."""
    current = attachment_get_by_key(item.pk, item.attachment_id, consistent=True)
    state = current.state if current is not None else None
    return ChangedSinceRead(
        f"{item.filename} is {(state or 'missing').lower()}; it cannot become {wanted.lower()}",
        current=state,
        wanted=wanted,
        attachment_id=item.attachment_id,
    )
