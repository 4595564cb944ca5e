"""Writing issues: numbered by the sort-key sequence, edited under optimistic locking.

Every write is conditional. Creation claims the next number (``patterns.sequences``); an edit is
an UpdateItem conditioned on the version the editor loaded; a status change is also
conditioned on the status it leaves; removal is a tombstone, never a DeleteItem, so the
number stays taken. A project is the static item at sort key 0 of its collection (its writes:
``project_writes``).

Every write keeps the issue's list indexes right: it sets (or removes) the list-index key
attributes in the same request (``IssueItem.list_keys``), and when labels, title words or the
status of a labelled issue change, the issue's ``terms`` entries change in the same
TransactWriteItems as the issue itself — the issue and its entries never disagree.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar, cast

from pynamodb.exceptions import TransactWriteError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.models import Model

from ddbmodels.core import capacity
from ddbmodels.core.errors import (
    AlreadyExists,
    ChangedSinceRead,
    InvalidTransition,
    KeyUsed,
    NotFound,
    is_conditional_failure,
)
from ddbmodels.core.keys import utcnow
from ddbmodels.core.transactions import RawTransactWrite, raw_put
from ddbmodels.idempotency import new_record, record_get
from ddbmodels.issues.model import (
    TRANSITIONS,
    CollectionItem,
    IssueItem,
    collection_key,
    issue_row,
)
from ddbmodels.patterns.sequences import Claimed, put_next, reason_codes
from ddbmodels.terms import TermEntry, entries_for

V = TypeVar("V", bound=CollectionItem)


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
) -> Claimed[IssueItem]:
    """Query max SK (1 RCU, consistent) + conditional PutItem (1 WCU per KB, + 3–4 index entries); retried.

    With labels or title words the put is a TransactWriteItems of the issue and its ``terms``
    entries: 2 WCU per item ≤ 1 KB (a title of 6 words and 2 labels: 2 × 9 = 18 WCU + the
    list-index entries).

    Raises NotFound when the project's static item is missing (the same read proves it exists:
    the smallest possible maximum of a project collection is its static item at SK 0).

    Exactly once: the issue carries this call's random token, so a put refused on our own
    committed item (botocore retried after a lost answer) is recognised (+1 RCU on a refused
    put only). With ``idempotency_key`` the put is a transaction with the key's record
    (``ddbmodels.idempotency``): 4 WCU instead of 1 (+3 WCU); a key that already created an
    issue returns that issue, ``replayed``, after 2 consistent GetItems (2 RCU), writing nothing.
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
            created_at=now,
            updated_at=now,
            request=request,
        )
        issue.set_list_keys()
        return issue

    def entries(item: IssueItem) -> list[dict[str, Any]]:
        return [raw_put(TermEntry.Meta.table_name, entry) for entry in _entries(item).values()]

    def record(item: IssueItem) -> Model:
        assert idempotency_key is not None
        return new_record(tenant=tenant, kind=kind, key=idempotency_key, result=str(item.number), request=request)

    try:
        return put_next(
            # the whole collection: a query of IssueItem would filter the static item at SK 0 out
            cast("type[IssueItem]", CollectionItem),
            pk,
            build,
            token=("request", request),
            record=record if idempotency_key else None,
            extras=entries,
        )
    except KeyUsed:
        assert idempotency_key is not None
        return _replayed(pk, record_get(tenant=tenant, kind=kind, key=idempotency_key), request)


def _replayed(pk: str, record: Model | None, request: str) -> Claimed[IssueItem]:
    """The issue an idempotency record names (GetItem, consistent: 1 RCU); ``replayed`` unless it was this call's."""
    if record is None:  # expired between the refused write and this read: vanishingly rare, never silent
        raise AlreadyExists("this form was already submitted", pk=pk)
    number = int(record.result)  # type: ignore[attr-defined]
    issue = CollectionItem.get(pk, number, consistent_read=True)
    assert isinstance(issue, IssueItem)
    return Claimed(item=issue, number=number, attempts=1, replayed=record.request != request)  # type: ignore[attr-defined]


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


def _entries(issue: IssueItem) -> dict[str, dict[str, Any]]:
    """The ``terms`` entries the issue should have now, raw, by sort key (none for a tombstone)."""
    return {} if issue.is_tombstone else entries_for(issue_row(issue))


def _list_key_actions(issue: IssueItem) -> list[Action]:
    """SET/REMOVE of the list-index keys for ``issue`` as it will be after the update."""
    actions: list[Action] = []
    for name, value in issue.list_keys().items():
        attribute = getattr(IssueItem, name)
        actions.append(attribute.set(value) if value else attribute.remove())
    return actions


def _update_with_entries(
    issue: IssueItem, actions: list[Action], condition: Condition | None, local: dict[str, Any]
) -> IssueItem:
    """UpdateItem the issue to ``local`` (+ its list-index keys) — or, when its ``terms`` entries change,
    TransactWriteItems [Update issue, Put changed entries, Delete gone entries].

    ``local`` are the attribute values ``actions`` set: they give the issue as it will be (its
    entries and list keys), and are applied to ``issue`` once committed (a transaction returns
    no item). Raises ChangedSinceRead when the issue's version (or ``condition``) no longer
    holds, or another transaction is changing it; nothing is written then.
    """
    after = IssueItem.from_raw_data(issue.serialize(null_check=False))
    for name, value in local.items():
        setattr(after, name, value)
    actions = [*actions, *_list_key_actions(after)]
    before_entries, after_entries = _entries(issue), _entries(after)
    puts = [entry for sort, entry in after_entries.items() if before_entries.get(sort) != entry]
    deletes = [sort for sort in before_entries if sort not in after_entries]
    if not puts and not deletes:
        updated = update_versioned(issue, actions, condition)
    else:
        table = TermEntry.Meta.table_name
        try:
            with RawTransactWrite(
                connection=CollectionItem._get_connection().connection,
                client_request_token=uuid.uuid4().hex,
                return_consumed_capacity="TOTAL",
            ) as transaction:
                transaction.update(issue, actions=actions, condition=condition)
                for entry in puts:
                    transaction.put_raw(table, entry)
                for sort in deletes:
                    transaction.delete_raw(table, {"tn": {"S": issue.tenant}, "s": {"S": sort}})
        except TransactWriteError as error:
            if {"ConditionalCheckFailed", "TransactionConflict"} & set(reason_codes(error)):
                raise ChangedSinceRead("changed since it was loaded", pk=issue.pk, number=issue.number) from error
            raise
        for name, value in local.items():
            setattr(issue, name, value)
        updated = issue
    updated.set_list_keys()
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
) -> IssueItem:
    """UpdateItem the editable fields if version matches and not tombstoned — 1 WCU per KB (+ list-index entries).

    A change of labels or title words is a TransactWriteItems with the entries that change:
    2 WCU per item ≤ 1 KB.
    """
    label_set = set(labels)
    now = utcnow()
    actions: list[Action] = [
        IssueItem.title.set(title),
        IssueItem.priority.set(priority),
        IssueItem.updated_at.set(now),
        IssueItem.description.set(description) if description else IssueItem.description.remove(),
        IssueItem.assignee.set(assignee) if assignee else IssueItem.assignee.remove(),
        IssueItem.labels.set(label_set) if label_set else IssueItem.labels.remove(),
    ]
    local: dict[str, object] = {
        "title": title,
        "priority": priority,
        "updated_at": now,
        "description": description or None,
        "assignee": assignee or None,
        "labels": label_set or None,
    }
    return _update_with_entries(issue, actions, IssueItem.deleted_at.does_not_exist(), local)


@capacity.access_pattern("issues.update")
def issue_change_status(issue: IssueItem, *, to: str) -> IssueItem:
    """UpdateItem status if version matches and status is still the one left — 1 WCU per KB (+ 2 WCU an index moved).

    A labelled issue's label entries move with it (TransactWriteItems: 2 WCU per item ≤ 1 KB).
    Raises InvalidTransition for a move the workflow does not allow (nothing is written).
    """
    current = issue.status
    if issue.is_tombstone or to not in TRANSITIONS.get(current, frozenset()):
        raise InvalidTransition(f"cannot move from {current} to {to}", current=current, to=to)
    now = utcnow()
    return _update_with_entries(
        issue,
        [IssueItem.status.set(to), IssueItem.updated_at.set(now)],
        (IssueItem.status == current) & IssueItem.deleted_at.does_not_exist(),
        {"status": to, "updated_at": now},
    )


@capacity.access_pattern("issues.tombstone")
def issue_tombstone(issue: IssueItem, *, by: str) -> IssueItem:
    """UpdateItem to a tombstone (content removed, number kept) if version matches — 1 WCU (+ index entries removed).

    Its ``terms`` entries go in the same TransactWriteItems (2 WCU per item). Never DeleteItem:
    the sequence reads the largest SK, so a deleted top issue's number would be handed out again.
    """
    if issue.is_tombstone:
        raise InvalidTransition("already deleted")
    now = utcnow()
    return _update_with_entries(
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
