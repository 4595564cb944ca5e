"""Editing issues under optimistic locking: edits, status changes, tombstones (creating them: ``creates``).

Every write is conditional: an edit is an UpdateItem conditioned on the version the editor loaded; a status change
is also conditioned on the status it leaves; removal is a tombstone, never a DeleteItem, so the number stays taken.
A project is the static item at sort key 0 of its collection (its writes: ``project_writes``).

Every write keeps the issue's list indexes right: it sets (or removes) the list-index key
attributes in the same request (``IssueItem.list_keys``). An edit, a status change or a tombstone writes the
issue's ``labels`` entries right after its conditional update, each guarded by the issue's new version
(``ddbmodels.labels.writes``), so a late writer never undoes a newer one, and ``bulk.issue_labels_reconcile``
repairs what a writer that died between the two left (the change-event task calls it). Title words are not
DynamoDB's any more: a status or assignee change writes no word entry (the search engine, ``tracker/search``,
is fed from the change events).

Exactly once under lost answers: every update also writes a token of the call (``wf``, ``IssueItem.write_fence``,
16 characters, not projected). When DynamoDB did the update and its answer was lost, botocore sends it again and
the resend is refused by the call's own write (the version moved on): the consistent GetItem that refusal makes
(1 RCU, on the refused path only) finds this call's token, so the call returns the issue as written (its label
entries moved as after any update) and its caller records the change, never a "changed since you loaded it" for
the person's own saved change. A write into a milestone is a transaction with a ClientRequestToken, which
botocore's resend repeats (DynamoDB answers it as done); the fence covers it as well.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeVar

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition, is_conditional_failure, is_unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.issues.bulk import issue_labels_reconcile
from ddbmodels.issues.guarded import guard_for, update_guarded
from ddbmodels.issues.model import TRANSITIONS, CollectionItem, IssueItem, issue_row
from ddbmodels.labels import entries_for, entries_move, registry_ensure

V = TypeVar("V", bound=CollectionItem)


class Unset(enum.Enum):
    """The type of ``UNSET``: "leave this field alone" where None means "clear it" (the assignee, the milestone)."""

    UNSET = "unset"


UNSET: Final = Unset.UNSET


def update_versioned(item: V, actions: Sequence[Action], condition: Condition | None = None) -> V:
    """UpdateItem with ``version = :loaded`` (and ``condition``) — 1 WCU per KB of the item.

    Raises ChangedSinceRead when somebody saved the item since it was loaded.
    """
    try:
        item.update(actions=list(actions), condition=condition)
    except UpdateError as error:
        if is_conditional_failure(error):
            raise ChangedSinceRead("changed since it was loaded", pk=item.pk, number=item.number) from error
        raise
    return item


class IssueChangedSinceRead(ChangedSinceRead):
    """An issue's update refused by another call's write, with ``stored``: the issue as the refusal's consistent
    GetItem read it (None: gone), so a caller needs no second read (``changes.issue_change``: its form's replay)."""

    def __init__(self, message: str, *, stored: IssueItem | None, pk: str, number: int) -> None:
        super().__init__(message, pk=pk, number=number)
        self.stored = stored


def _stored(issue: IssueItem) -> IssueItem | None:
    """After a refused update: GetItem the issue, consistent — 1 RCU. When it holds this call's fence (``wf``),
    DynamoDB did this call's update, its answer was lost and botocore's resend was refused by it."""
    try:
        stored = CollectionItem.get(issue.pk, issue.number, consistent_read=True)
    except CollectionItem.DoesNotExist:
        return None
    return stored if isinstance(stored, IssueItem) else None


def _entries(issue: IssueItem) -> dict[tuple[str, str], dict[str, Any]]:
    """The ``labels`` entries the issue should have now, raw, by key (none for a tombstone)."""
    return {} if issue.is_tombstone else entries_for(issue_row(issue))


def _list_key_actions(issue: IssueItem) -> list[Action]:
    """SET/REMOVE of the list-index keys for ``issue`` as it will be after the update."""
    actions: list[Action] = []
    for name, value in issue.list_keys().items():
        attribute = getattr(IssueItem, name)
        actions.append(attribute.set(value) if value else attribute.remove())
    return actions


def update_with_entries(
    issue: IssueItem, actions: list[Action], condition: Condition | None, local: dict[str, Any]
) -> IssueItem:
    """UpdateItem the issue to ``local`` (+ its list-index keys), then move its ``labels`` entries.

    ``local`` are the attribute values ``actions`` set: they give the issue as it will be (its list
    keys). Raises ChangedSinceRead when the issue's version (or ``condition``) no longer holds;
    nothing is written then. A write that puts the issue into a milestone (or reopens it inside one) is a
    TransactWriteItems with a ConditionCheck of that milestone (``guarded``: 2 WCU per KB of the issue + 2 for
    the check, instead of 1 WCU per KB): MilestoneNotOpen when it is closing or closed, nothing written.
    Once the update is committed, the label entries that change are put
    and deleted one by one (1 WCU each, outside a transaction: a status change of an issue with 2
    labels costs 4 WCU there instead of 8), each guarded by the new version; labels new to the team
    are registered before their first entry. A refused entry write means a newer version of the issue
    wrote meanwhile: the issue's entries are then reconciled with the issue as it is now (rare: a race).

    The update writes this call's token (``wf``, ≈ 20 bytes on the issue: a write that takes it past a KB boundary
    costs 1 WCU more). Refused: + 1 RCU (``_stored``'s consistent GetItem); when that finds this call's token, its
    answer was lost and botocore's resend was refused by it: the call's own success, returned as any update. Else
    ``IssueChangedSinceRead``, carrying the issue that read found. A call that got no answer at all (every attempt's
    lost, or DynamoDB failing past botocore's retries) makes the same read (+ 1 RCU) before failing: its token there
    is its success too; else (or that read failing as well) the call's own failure is raised.
    """
    after = IssueItem.from_raw_data(issue.serialize(null_check=False))
    for name, value in local.items():
        setattr(after, name, value)
    fence = secrets.token_hex(8)  # this call's: a refused resend of its own write finds it (``_stored``)
    actions = [*actions, *_list_key_actions(after), IssueItem.write_fence.set(fence)]
    before_entries, labels_before = _entries(issue), set(issue.labels or ())
    added = set(after.labels or ()) - set(issue.labels or ())
    if added and not after.is_tombstone:
        registry_ensure(issue.tenant, added)
    # ``xm`` is built from ``ms``: a copy that does not hold the stored milestone (a list row, a label entry's
    # copy: neither projects it) must not rewrite or remove that key — refused as changed since read instead.
    known = getattr(issue, "milestone", None)
    same_milestone = IssueItem.milestone == known if known else IssueItem.milestone.does_not_exist()
    condition = same_milestone if condition is None else condition & same_milestone
    check = guard_for(issue, local)  # into a milestone, or reopened in one: the milestone is part of the write
    try:
        updated = (
            update_versioned(issue, actions, condition)
            if check is None
            else update_guarded(issue, actions, condition, check)
        )
    except ChangedSinceRead as error:
        stored = _stored(issue)
        if stored is None or stored.write_fence != fence:
            raise IssueChangedSinceRead(str(error), stored=stored, pk=issue.pk, number=int(issue.number)) from error
        issue.deserialize(stored.serialize(null_check=False))  # as an update leaves the item it was given
        updated = issue
    except Exception as error:
        # No answer at all (every attempt's lost, or throttled/5xx past botocore's retries): DynamoDB may have done
        # it all the same. The same read tells: this call's token is its own success (R3-1), else the failure stands.
        if not is_unavailable(error):
            raise
        try:
            stored = _stored(issue)
        except Exception:  # noqa: BLE001  (still no answer: the call's failure is the one to report)
            raise error from None
        if stored is None or stored.write_fence != fence:
            raise
        issue.deserialize(stored.serialize(null_check=False))
        updated = issue
    for name, value in local.items():
        setattr(updated, name, value)
    updated.set_list_keys()
    after_entries = _entries(updated)
    if before_entries or after_entries:
        _, refused = entries_move(before_entries, after_entries, version=int(updated.version or 0))
        if refused:  # a newer version of the issue wrote meanwhile: make the entries what the issue says now
            issue_labels_reconcile(
                tenant=updated.tenant,
                project_key=updated.project_key,
                number=int(updated.number),
                labels_also=labels_before,
            )
    return updated


@capacity.access_pattern("issues.update")
def issue_update(
    issue: IssueItem,
    *,
    title: str,
    description: str,
    priority: str,
    assignee: str | None,
    labels: Iterable[str],
    milestone: str | None | Unset = UNSET,
) -> IssueItem:
    """UpdateItem the editable fields if version matches and not tombstoned — 1 WCU per KB (+ list-index entries).

    ``milestone``: the id of the milestone to put it in (None: in none; ``UNSET``: left alone). A move sets ``ms``
    and moves the ``milestone_status`` key ``xm`` in the same request (+ 1 WCU in, + 1 out: 2 for a move), on the
    same version and on the milestone it was read in (``update_with_entries``). Which milestones may be chosen
    is the caller's to check (``tracker.services.issues``).

    Then the issue's ``labels`` entries: each rewritten (its row copy changed), put or deleted, 1 WCU.
    """
    wanted: dict[str, Any] = {
        "title": title,
        "priority": priority,
        "description": description or None,
        "assignee": assignee or None,
        "labels": set(labels) or None,
    }
    if milestone is not UNSET:
        wanted["milestone"] = milestone or None
    # Only the attributes that differ from the issue as loaded (the version condition makes that what
    # is stored) are in the request: one left alone is never overwritten, not even with its own value.
    local: dict[str, Any] = {name: value for name, value in wanted.items() if value != (getattr(issue, name) or None)}
    local["updated_at"] = utcnow()
    actions: list[Action] = [
        getattr(IssueItem, name).set(value) if value is not None else getattr(IssueItem, name).remove()
        for name, value in local.items()
    ]
    return update_with_entries(issue, actions, IssueItem.deleted_at.does_not_exist(), local)


@capacity.access_pattern("issues.update")
def issue_change_status(issue: IssueItem, *, to: str) -> IssueItem:
    """UpdateItem status if version matches and status is still the one left — 1 WCU per KB (+ 2 WCU an index moved).

    A labelled issue's label entries move after it (a guarded delete and put each: 2 WCU a label).
    Raises InvalidTransition for a move the workflow does not allow (nothing is written).
    """
    current = issue.status
    if issue.is_tombstone or to not in TRANSITIONS.get(current, frozenset()):
        raise InvalidTransition(f"cannot move from {current} to {to}", current=current, to=to)
    now = utcnow()
    return update_with_entries(
        issue,
        [IssueItem.status.set(to), IssueItem.updated_at.set(now)],
        (IssueItem.status == current) & IssueItem.deleted_at.does_not_exist(),
        {"status": to, "updated_at": now},
    )


@capacity.access_pattern("issues.tombstone")
def issue_tombstone(issue: IssueItem, *, by: str) -> IssueItem:
    """UpdateItem to a tombstone (content removed, number kept) if version matches — 1 WCU (+ index entries removed).

    Its ``labels`` entries are deleted after it (1 WCU each, guarded). A form's token and change (``bk``, ``bc``) go
    with the content: the form sent again is refused as deleted, not replayed (R3-3). Never DeleteItem:
    the sequence reads the largest SK, so a deleted top issue's number would be handed out again.
    """
    if issue.is_tombstone:
        raise InvalidTransition("already deleted")
    now = utcnow()
    return update_with_entries(
        issue,
        [
            IssueItem.deleted_at.set(now),
            IssueItem.deleted_by.set(by),
            IssueItem.updated_at.set(now),
            IssueItem.title.set("(deleted)"),
            IssueItem.description.remove(),
            IssueItem.labels.remove(),
            IssueItem.assignee.remove(),
            IssueItem.bulk_token.remove(),  # a form's token and change (its before/after quote the content) go too
            IssueItem.bulk_change.remove(),
        ],
        None,
        {
            "deleted_at": now,
            "deleted_by": by,
            "updated_at": now,
            "title": "(deleted)",
            "description": None,
            "labels": None,
            "assignee": None,
            "bulk_token": None,
            "bulk_change": None,
        },
    )
