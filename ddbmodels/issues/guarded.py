"""Writes that put an issue into a milestone check the milestone in the same transaction (review round 3, R3-1).

A milestone being closed ("closing": its job is moving its open issues out) or closed takes no new issue. A form's
read of the milestone (open a moment ago) is not enough: a close can start between that read and the write, and
its walk would miss the issue. So the write itself carries the check:

    into a milestone (create with one, edit or change moving it)   TransactWriteItems [ConditionCheck the
        milestone: it exists and ``st = "open"``; Put / Update the issue on its own condition and version]
    reopening (resolved/closed → open/in_progress) inside one        the same, ConditionCheck ``st <> "closing"``
        (a CLOSED milestone still allows it, as on GitHub; only a running close must not miss it; a reopen that
        takes the issue out of its milestone in the same write is not checked: the close cannot miss it)

The two refusals are told apart from the cancellation reasons (one per item, in order: the check first): the
issue's own condition → ``ChangedSinceRead`` (``issue_change`` then still answers its own form's replay,
``holds_token``); only the milestone's → ``MilestoneNotOpen`` naming it and its state (the check returns the
milestone as it was, ``ReturnValuesOnConditionCheckFailure = ALL_OLD``: no extra read). A transaction cancelled by
a concurrent one on the same milestone (``TransactionConflict``: ten rows of a bulk edit check one milestone) is
tried again with a fresh ClientRequestToken, a few times, then ``Contention`` (nothing written).

Cost (AWS's pricing: a transaction charges 2 WCU per started KB of each item it writes, and a ConditionCheck
counts as a transactional write of the checked item's size): a move of a ≤ 1 KB issue into a ≤ 1 KB milestone is
2 (issue) + 2 (check) = 4 WCU instead of 1 WCU, + its list-index entries as before (1 WCU each, 2 for a key
moved: indexes are written outside the transaction's doubling). Writes that put nothing into a milestone are
unchanged (one UpdateItem). The milestones table is reached by its physical name (``connection.table_name``):
the issues package does not import ``ddbmodels.milestones`` (sibling layers); the attribute names (``m`` its
sort key, ``st`` its state, ``nm`` its name) are ``ddbmodels.milestones.model``'s.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from ddbmodels.core import connection, retry
from ddbmodels.core.errors import RETRYABLE_REASONS, ChangedSinceRead, Contention, MilestoneNotOpen, response_code
from ddbmodels.core.transactions import RawTransactWrite
from ddbmodels.issues.model import IssueItem

MILESTONES_TABLE = "milestones"  # ddbmodels.milestones' base table name
DONE = frozenset({"resolved", "closed"})
LIVE = frozenset({"open", "in_progress"})
CONFLICT_BACKOFF = retry.Backoff(attempts=6, base_s=0.01, cap_s=0.2)


def milestone_check(tenant: str, project_key: str, milestone_id: str, *, reopen: bool = False) -> dict[str, Any]:
    """A raw ConditionCheck of the milestone (``RawTransactWrite.check_raw``): it exists and is open; with
    ``reopen``, only that it is not being closed (a missing or closed milestone passes)."""
    if reopen:
        condition, values = "attribute_not_exists(#st) OR #st <> :closing", {":closing": {"S": "closing"}}
    else:
        condition, values = "attribute_exists(#m) AND #st = :open", {":open": {"S": "open"}}
    return {
        "TableName": connection.table_name(MILESTONES_TABLE),
        "Key": {"pk": {"S": f"{tenant}#{project_key}"}, "m": {"S": milestone_id}},
        "ConditionExpression": condition,
        "ExpressionAttributeNames": {"#st": "st", **({} if reopen else {"#m": "m"})},
        "ExpressionAttributeValues": values,
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }


def guard_for(issue: IssueItem, local: dict[str, Any]) -> dict[str, Any] | None:
    """The check a write of ``local`` (attribute values) to ``issue`` needs, or None: a move INTO a milestone
    needs it open; a reopen inside one needs it not closing — the milestone the issue is in AFTER the write: a
    reopen that takes it out of a closing milestone (``milestone: None``) cannot be missed by that close (R4-4)."""
    into = local.get("milestone") if "milestone" in local else None
    if into:
        return milestone_check(issue.tenant, issue.project_key, into)
    status = local.get("status")
    staying = getattr(issue, "milestone", None) if "milestone" not in local else None
    if staying and status in LIVE and issue.status in DONE:
        return milestone_check(issue.tenant, issue.project_key, staying, reopen=True)
    return None


def refused_by_check(check: dict[str, Any], reason: Any) -> MilestoneNotOpen:
    """The domain error of a milestone check that failed: its name and state from the returned item."""
    raw = getattr(reason, "raw_item", None) or {}
    name = (raw.get("nm") or {}).get("S")
    state = (raw.get("st") or {}).get("S") if raw else None
    milestone = check["Key"]["m"]["S"]
    if "<>" in check["ConditionExpression"]:  # a reopen inside a closing milestone
        message = f"milestone {name or milestone} is being closed: reopen the issue once its close has ended"
        return MilestoneNotOpen(message, milestone=milestone, name=name, state=state)
    return MilestoneNotOpen(milestone=milestone, name=name, state=state)


def update_guarded(
    issue: IssueItem, actions: Sequence[Action], condition: Condition | None, check: dict[str, Any]
) -> IssueItem:
    """TransactWriteItems [ConditionCheck ``check``, Update ``issue`` on ``condition`` + its loaded version].

    Returns the issue as loaded with its version advanced (the caller sets the written values: a transaction
    returns no item). Raises ChangedSinceRead (the issue's condition failed, whatever the milestone),
    MilestoneNotOpen (only the check failed), Contention (conflicting transactions every try).
    """
    for _ in retry.attempts(CONFLICT_BACKOFF):
        try:
            with RawTransactWrite(
                connection=IssueItem._get_connection().connection,
                client_request_token=uuid.uuid4().hex,
                return_consumed_capacity="TOTAL",
            ) as transaction:
                transaction.check_raw(check)
                transaction.update(issue, actions=list(actions), condition=condition)
        except TransactWriteError as error:
            reasons = error.cancellation_reasons if response_code(error) == "TransactionCanceledException" else []
            codes = [reason.code if reason is not None else "None" for reason in reasons]
            if codes[1:2] == ["ConditionalCheckFailed"]:
                raise ChangedSinceRead("changed since it was loaded", pk=issue.pk, number=issue.number) from error
            if codes[:1] == ["ConditionalCheckFailed"]:
                raise refused_by_check(check, reasons[0]) from error
            if response_code(error) == "TransactionConflictException" or set(codes) & RETRYABLE_REASONS:
                continue  # a concurrent transaction on the milestone or the issue: nothing written, try again
            raise
        return issue
    raise Contention("conflicting writes on the milestone every try", pk=issue.pk, number=issue.number)
