"""Attachment state transitions, each one conditional write on the state it leaves.

    (new) ──PutItem──▶ Attaching ──▶ Attached ──▶ Detaching ──▶ Detached
                           └──────▶ Failed

Entering Attaching or Detaching sets the sparse ``in_flight`` index keys, leaving it REMOVEs
them in the same UpdateItem (``patterns.sparse_index``). A transition the state does not allow
writes nothing and raises ChangedSinceRead naming the state the item is really in (read
with one consistent GetItem, on that path only).
"""

from __future__ import annotations
from collections.abc import Sequence
from datetime import datetime
from pynamodb.exceptions import DoesNotExist
from pynamodb.expressions.condition import Condition
from ddbmodels import capacity
from ddbmodels.attachments import (
    ATTACHED,
    ATTACHING,
    ATTACHMENT_ID_RE,
    DETACHED,
    DETACHING,
    FAILED,
    IN_FLIGHT,
    INTERMEDIATE,
    VISIBLE,
    AttachmentItem,
    AttachmentStateError,
    issue_key,
    new_attachment_id,
    storage_name,
)
from ddbmodels.errors import InvalidTransition
from ddbmodels.issues import utcnow
from ddbmodels.patterns import sparse_index


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
) -> AttachmentItem:
    """PutItem in Attaching with the in_flight keys, if attribute_not_exists(pk) — 1 WCU + 1 WCU (index).

    ``filename`` must already be clean (``attachments.clean_filename``).
    """
    now = utcnow()
    attachment_id = new_attachment_id()
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
        sparse_index.put_entering(IN_FLIGHT, item, state=ATTACHING, at=now, condition=Item.pk.does_not_exist())
    except InvalidTransition as error:  # 80 random bits collided: astronomically unlikely, never silent
        raise AttachmentStateError("attachment id taken", current=None, wanted=ATTACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_complete(item: AttachmentItem, *, same_visit: bool = False) -> AttachmentItem:
    """UpdateItem st=Attached REMOVE gp, gs, if st = Attaching — 1 WCU + 1 WCU (index entry deleted).

    ``same_visit``: also require the entry time this copy carries, so a writer whose item was
    claimed by the repair job meanwhile (``attachment_claim``) is refused.
    """
    condition = Item.state == ATTACHING
    if same_visit:
        condition &= IN_FLIGHT.entered_at(item)
    return _leave(item, ATTACHED, condition, [Item.state.set(ATTACHED), Item.updated_at.set(utcnow())])


@capacity.access_pattern("attachments.transition")
def attachment_claim(item: AttachmentItem, *, reason: str) -> AttachmentItem:
    """UpdateItem SET gs=now, rs if st = Attaching and gs unchanged — 1 WCU + 2 WCU (index key moved).

    A stuck attach is claimed before anything is deleted: the uploader, if it is somehow still
    at work, completes only on the entry time it knows, and is refused from now on.
    """
    condition = (Item.state == ATTACHING) & IN_FLIGHT.entered_at(item)
    try:
        sparse_index.enter(
            IN_FLIGHT, item, state=ATTACHING, at=utcnow(), condition=condition, actions=[Item.reason.set(reason)]
        )
    except InvalidTransition as error:
        raise _refused(item, ATTACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_fail(item: AttachmentItem, *, reason: str) -> AttachmentItem:
    """UpdateItem st=Failed, rs REMOVE gp, gs, if st = Attaching and gs unchanged — 1 WCU + 1 WCU."""
    condition = (Item.state == ATTACHING) & IN_FLIGHT.entered_at(item)
    actions = [Item.state.set(FAILED), Item.reason.set(reason), Item.updated_at.set(utcnow())]
    return _leave(item, FAILED, condition, actions)


@capacity.access_pattern("attachments.transition")
def attachment_detach_begin(item: AttachmentItem, *, by: str) -> AttachmentItem:
    """UpdateItem st=Detaching, db SET gp, gs, if st = Attached — 1 WCU + 1 WCU (index entry added)."""
    now = utcnow()
    actions = [Item.state.set(DETACHING), Item.detached_by.set(by), Item.updated_at.set(now)]
    try:
        sparse_index.enter(IN_FLIGHT, item, state=DETACHING, at=now, condition=Item.state == ATTACHED, actions=actions)
    except InvalidTransition as error:
        raise _refused(item, DETACHING) from error
    return item


@capacity.access_pattern("attachments.transition")
def attachment_detach_complete(item: AttachmentItem) -> AttachmentItem:
    """UpdateItem st=Detached REMOVE gp, gs, if st = Detaching — 1 WCU + 1 WCU (index entry deleted)."""
    return _leave(item, DETACHED, Item.state == DETACHING, [Item.state.set(DETACHED), Item.updated_at.set(utcnow())])


def _leave(item: AttachmentItem, to: str, condition: Condition, actions: list) -> AttachmentItem:
    try:
        sparse_index.leave(IN_FLIGHT, item, condition=condition, actions=actions)
    except InvalidTransition as error:
        raise _refused(item, to) from error
    return item


def _refused(item: AttachmentItem, wanted: str) -> AttachmentStateError:
    """The error for a refused transition, with the state read now — GetItem, consistent: 1 RCU."""
    current = attachment_get_by_key(item.pk, item.attachment_id, consistent=True)
    state = current.state if current is not None else None
    return AttachmentStateError(
        f"{item.filename} is {(state or 'missing').lower()}; it cannot become {wanted.lower()}",
        current=state,
        wanted=wanted,
        attachment_id=item.attachment_id,
    )
