"""Writing issues: numbered by the sort-key sequence, edited under optimistic locking.

Every write is conditional. Creation claims the next number (``patterns.sequences``); an edit is
an UpdateItem conditioned on the version the editor loaded; a status change is also
conditioned on the status it leaves; removal is a tombstone, never a DeleteItem, so the
number stays taken. A project is the static item at sort key 0 of its collection (its writes:
``project_writes``).

Every write keeps the issue's list indexes right: it sets (or removes) the list-index key
attributes in the same request (``IssueItem.list_keys``). A labelled issue's ``labels`` entries
are put in a create's transaction; an edit, a status change or a tombstone writes them right after
its conditional update, each guarded by the issue's new version (``ddbmodels.labels.writes``), so
a late writer never undoes a newer one, and ``bulk.issue_labels_reconcile`` repairs what a writer
that died between the two left (the change-event task calls it). Title words are not DynamoDB's
any more: a status or assignee change writes no word entry (the search engine, ``tracker/search``,
is fed from the change events).
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar, cast

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.models import Model

from ddbmodels.core import capacity
from ddbmodels.core.errors import (
    AlreadyExists,
    ChangedSinceRead,
    InvalidTransition,
    KeyUsed,
    MilestoneNotOpen,
    NotFound,
    is_conditional_failure,
)
from ddbmodels.core.keys import utcnow
from ddbmodels.core.transactions import raw_put
from ddbmodels.idempotency import CreationRecord, check_fingerprint, check_unused, new_record, record_get
from ddbmodels.issues.bulk import issue_labels_reconcile
from ddbmodels.issues.guarded import guard_for, milestone_check, refused_by_check, update_guarded
from ddbmodels.issues.model import (
    TRANSITIONS,
    CollectionItem,
    IssueItem,
    collection_key,
    issue_row,
)
from ddbmodels.labels import LabelEntry, entries_for, entries_move, registry_ensure
from ddbmodels.patterns.sequences import Claimed, put_next

V = TypeVar("V", bound=CollectionItem)


class Unset(enum.Enum):
    """The type of ``UNSET``: "leave this field alone" where None means "clear it" (the assignee, the milestone)."""

    UNSET = "unset"


UNSET: Final = Unset.UNSET


@capacity.access_pattern("issues.create")
def issue_create(
    *,
    tenant: str,
    project_key: str,
    title: str,
    reporter: str,
    description: str = "",
    priority: str = "medium",
    assignee: str | None = None,
    labels: Iterable[str] = (),
    idempotency_key: str | None = None,
    milestone: str | None = None,
    fingerprint: str | None = None,
) -> Claimed[IssueItem]:
    """Query max SK (1 RCU, consistent) + conditional PutItem (1 WCU per KB, + 3–4 index entries); retried.

    With labels the put is a TransactWriteItems of the issue and its ``labels`` entries: 2 WCU per
    item ≤ 1 KB (2 labels: 2 × 3 = 6 WCU + the list-index entries). A label new to the team is
    registered first (``labels.registry_ensure``: 0.5 RCU the first time a process sees it, 1 WCU
    the first time the team uses it).

    Raises NotFound when the project's static item is missing (the same read proves it exists:
    the smallest possible maximum of a project collection is its static item at SK 0).

    Exactly once: the issue carries this call's random token, so a put refused on our own
    committed item (botocore retried after a lost answer) is recognised (+1 RCU on a refused
    put only). With ``idempotency_key`` the put is a transaction with the key's record
    (``ddbmodels.idempotency``): +2 WCU for the record and +1 for its ``by_tenant`` entry; a key
    that already created an issue returns that issue, ``replayed``, after 2 consistent GetItems
    (2 RCU), writing nothing.

    With ``milestone`` the put is a transaction with a ConditionCheck of that milestone (``guarded``): it must
    exist in the project and be open, else MilestoneNotOpen and nothing is written (a form resent after its
    milestone started closing is its replay: the key's record is read on that refusal, 1 RCU). Cost: 2 WCU per
    KB of the issue + 2 for the check (+ the record's 3 with a key): a ≤ 1 KB issue with a key, 7 WCU.

    ``fingerprint`` (the API's request fingerprint) is kept on the key's record; the same key with another
    fingerprint raises KeyReused on the replay path (the record read anyway), nothing written.
    """
    pk = collection_key(tenant, project_key)
    request = uuid.uuid4().hex
    kind = f"issue#{project_key}"

    def build(last: int | None) -> IssueItem:
        if last is None:
            raise NotFound("project not found", tenant=tenant, project_key=project_key)
        now = utcnow()
        issue = IssueItem(
            pk=pk,
            number=last + 1,
            title=title,
            description=description or None,
            status="open",
            priority=priority,
            assignee=assignee or None,
            reporter=reporter,
            labels=set(labels) or None,
            milestone=milestone or None,  # its ``milestone_status`` entry: + 1 WCU
            created_at=now,
            updated_at=now,
            request=request,
        )
        issue.set_list_keys()
        return issue

    def entries(item: IssueItem) -> list[dict[str, Any]]:
        # The version the put gives the issue (1), not the unsaved item's (none): a label's list, read from these
        # entries, shows each row at its issue's version, so a bulk edit from it is not refused as stale.
        first = replace(issue_row(item), version=int(item.version or 0) + 1)
        return [raw_put(LabelEntry.Meta.table_name, entry) for entry in entries_for(first).values()]

    def record(item: IssueItem) -> Model:
        assert idempotency_key is not None
        return new_record(
            tenant=tenant,
            kind=kind,
            key=idempotency_key,
            result=created_result(int(item.number), milestone),
            request=request,
            fingerprint=fingerprint,
        )

    checks = [milestone_check(tenant, project_key, milestone)] if milestone else []
    if labels:
        registry_ensure(tenant, labels)  # before any entry of a new label exists: offboarding finds it
    try:
        if idempotency_key:
            check_unused(tenant=tenant, kind=kind, key=idempotency_key)  # a form sent before the upgrade
        return put_next(
            # the whole collection: a query of IssueItem would filter the static item at SK 0 out
            cast("type[IssueItem]", CollectionItem),
            pk,
            build,
            token=("request", request),
            record=record if idempotency_key else None,
            extras=entries,
            checks=checks,
            check_failed=lambda index, reason: refused_by_check(checks[index], reason),
        )
    except KeyUsed:
        assert idempotency_key is not None
        return _replayed(pk, record_get(tenant=tenant, kind=kind, key=idempotency_key), request, fingerprint)
    except MilestoneNotOpen:
        # The same form sent again after its milestone started closing: its first send made the issue (R3-11).
        # Read the key's record (1 RCU, on this refusal only) rather than trust which reasons were reported.
        found = record_get(tenant=tenant, kind=kind, key=idempotency_key) if idempotency_key else None
        if found is None:
            raise
        return _replayed(pk, found, request, fingerprint)


def created_result(number: int, milestone: str | None) -> str:
    """A create's record's ``r``: the issue's number, and ``#<milestone id>`` when it was created in a milestone
    (the replay's answer names the milestone the issue was created in, whatever it is in now)."""
    return f"{number}#{milestone}" if milestone else str(number)


@dataclass(frozen=True)
class Replayed:
    """What a key already created: the issue as it is now (``replayed``), and the milestone it was created in."""

    claimed: Claimed[IssueItem]
    milestone: str | None


@capacity.access_pattern("issues.replay")
def issue_replay(
    *, tenant: str, project_key: str, idempotency_key: str, fingerprint: str | None = None
) -> Replayed | None:
    """GetItem the key's record, consistent — 1 RCU; when there is one, GetItem the issue it names, consistent —
    1 RCU per 4 KB. None (nothing more read) when the key created nothing: the caller may check and create.

    Read before anything else, so a request sent again is answered what it created whatever changed since (the
    API's creates, R22-3). KeyReused when the key was used with another ``fingerprint``. A deleted issue is
    returned too (its tombstone keeps what never changes: number, reporter, creation time).
    """
    record = record_get(tenant=tenant, kind=f"issue#{project_key}", key=idempotency_key)
    if record is None:
        return None
    claimed = _replayed(collection_key(tenant, project_key), record, "", fingerprint)
    milestone = record.result.partition("#")[2]
    return Replayed(claimed=claimed, milestone=milestone or None)


def _replayed(pk: str, record: CreationRecord | None, request: str, fingerprint: str | None) -> Claimed[IssueItem]:
    """The issue an idempotency record names (GetItem, consistent: 1 RCU); ``replayed`` unless it was this call's.

    KeyReused (before the read) when the record was written for another request's ``fingerprint``.
    """
    if record is None:  # expired between the refused write and this read: vanishingly rare, never silent
        raise AlreadyExists("this form was already submitted", pk=pk)
    check_fingerprint(record, fingerprint)
    number = int(record.result.partition("#")[0])
    issue = CollectionItem.get(pk, number, consistent_read=True)
    assert isinstance(issue, IssueItem)
    return Claimed(item=issue, number=number, attempts=1, replayed=record.request != request)


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
    """
    after = IssueItem.from_raw_data(issue.serialize(null_check=False))
    for name, value in local.items():
        setattr(after, name, value)
    actions = [*actions, *_list_key_actions(after)]
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
    updated = (
        update_versioned(issue, actions, condition)
        if check is None
        else update_guarded(issue, actions, condition, check)
    )
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

    Its ``labels`` entries are deleted after it (1 WCU each, guarded). Never DeleteItem:
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
        },
    )
