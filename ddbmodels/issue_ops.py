"""Issues of a project: numbered by the sort-key sequence, edited under optimistic locking.

Every write is conditional. Creation claims the next number (patterns.sequences); an edit is
an UpdateItem conditioned on the version the editor loaded; a status change is also
conditioned on the status it leaves; removal is a tombstone, never a DeleteItem, so the
number stays taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from ddbmodels import capacity
from ddbmodels.errors import InvalidTransition, NotFound, StaleWrite, is_conditional_failure
from ddbmodels.issues import (
    PROJECT_SK,
    TRANSITIONS,
    CollectionItem,
    IssueItem,
    collection_key,
    utcnow,
)
from ddbmodels.patterns.pagination import NEWER, Page, newest_first_page
from ddbmodels.patterns.sequences import Claimed, put_next

V = TypeVar("V", bound=CollectionItem)
MAX_ISSUE_NUMBER = 10**15 - 1  # far beyond any real project; keeps look-ups inside DynamoDB's N range


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
) -> Claimed[IssueItem]:
    """Query max SK (1 RCU, consistent) + conditional PutItem (1 WCU per KB); retried on a lost race.

    Raises NotFound when the project's static item is missing (the same read proves it exists:
    the smallest possible maximum of a project collection is its static item at SK 0).
    """
    pk = collection_key(tenant, project_key)

    def build(last: int | None) -> IssueItem:
        if last is None:
            raise NotFound("project not found", tenant=tenant, project_key=project_key)
        now = utcnow()
        return IssueItem(
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
        )

    return put_next(CollectionItem, pk, build)  # type: ignore[arg-type]


@capacity.access_pattern("issues.get")
def issue_get(*, tenant: str, project_key: str, number: int, consistent: bool = False) -> IssueItem | None:
    """GetItem pk, SK=number — 0.5 RCU (1 RCU consistent) per 4 KB. None when missing or SK 0."""
    if not PROJECT_SK < number <= MAX_ISSUE_NUMBER:
        return None
    try:
        item = CollectionItem.get(collection_key(tenant, project_key), number, consistent_read=consistent)
    except DoesNotExist:
        return None
    return item if isinstance(item, IssueItem) else None


def update_versioned(item: V, actions: Sequence[Action], condition: Condition | None = None) -> V:
    """UpdateItem with ``version = :loaded`` (and ``condition``) — 1 WCU per KB of the item.

    Raises StaleWrite when somebody saved the item since it was loaded.
    """
    try:
        item.update(actions=list(actions), condition=condition)
    except UpdateError as error:
        if is_conditional_failure(error):
            raise StaleWrite("changed since it was loaded", pk=item.pk, number=item.number) from error
        raise
    return item


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
    """UpdateItem the editable fields if version matches and not tombstoned — 1 WCU per KB."""
    label_set = set(labels)
    actions: list[Action] = [
        IssueItem.title.set(title),
        IssueItem.priority.set(priority),
        IssueItem.updated_at.set(utcnow()),
        IssueItem.description.set(description) if description else IssueItem.description.remove(),
        IssueItem.assignee.set(assignee) if assignee else IssueItem.assignee.remove(),
        IssueItem.labels.set(label_set) if label_set else IssueItem.labels.remove(),
    ]
    return update_versioned(issue, actions, IssueItem.deleted_at.does_not_exist())


@capacity.access_pattern("issues.update")
def issue_change_status(issue: IssueItem, *, to: str) -> IssueItem:
    """UpdateItem status if version matches and status is still the one left — 1 WCU per KB.

    Raises InvalidTransition for a move the workflow does not allow (nothing is written).
    """
    current = issue.status
    if issue.is_tombstone or to not in TRANSITIONS.get(current, frozenset()):
        raise InvalidTransition(f"cannot move from {current} to {to}", current=current, to=to)
    return update_versioned(
        issue,
        [IssueItem.status.set(to), IssueItem.updated_at.set(utcnow())],
        (IssueItem.status == current) & IssueItem.deleted_at.does_not_exist(),
    )


@capacity.access_pattern("issues.tombstone")
def issue_tombstone(issue: IssueItem, *, by: str) -> IssueItem:
    """UpdateItem to a tombstone (content removed, number kept) if version matches — 1 WCU.

    Never DeleteItem: the sequence reads the largest SK, so a deleted top issue's number would
    be handed out again.
    """
    if issue.is_tombstone:
        raise InvalidTransition("already deleted")
    now = utcnow()
    return update_versioned(
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
    )


def _range_for(after: int | None, direction: str) -> Condition:
    if after is None:
        return CollectionItem.number > PROJECT_SK
    if direction == NEWER:
        return CollectionItem.number > after
    return CollectionItem.number.between(PROJECT_SK + 1, after - 1)


@capacity.access_pattern("issues.page")
def issue_page(
    *,
    tenant: str,
    project_key: str,
    status: str | None = None,
    size: int = 25,
    after: int | None = None,
    direction: str = "older",
) -> Page[IssueItem]:
    """Query pk, SK > 0 descending, filter live (and status) — ≈ 0.5 RCU per 4 KB read.

    The status filter reads the issues it discards too: fine for collections of thousands.
    """
    if after is not None and after <= PROJECT_SK + 1 and direction != NEWER:
        return Page(items=[], older_than=None, newer_than=None)  # nothing is older than issue 1
    live: Any = IssueItem.deleted_at.does_not_exist()
    if status:
        live &= IssueItem.status == status
    return newest_first_page(
        IssueItem,
        collection_key(tenant, project_key),
        range_key_condition_for=_range_for,
        filter_condition=live,
        size=size,
        after=after,
        direction=direction,
    )


@capacity.access_pattern("issues.numbers")
def issue_numbers(*, tenant: str, project_key: str) -> list[int]:
    """Query pk, SK > 0, projecting only SK, consistent — 1 RCU per 4 KB read. Tombstones included."""
    return [
        int(item.number)
        for item in CollectionItem.query(
            collection_key(tenant, project_key),
            range_key_condition=CollectionItem.number > PROJECT_SK,
            consistent_read=True,
            attributes_to_get=["n", "k"],
        )
    ]
