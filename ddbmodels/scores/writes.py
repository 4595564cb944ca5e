"""Points for resolved issues: awarded and revoked in one transaction with their proof; the board read.

An award is one TransactWriteItems of three items:

1. ConditionCheck the issue: still resolved, live, assigned to this user, of this priority;
2. Put the issue's award item, ``attribute_not_exists(pk)`` — the issue's points exist once;
3. Update the user's score: ``ADD sc :points, n :1``, ``SET tp = if_not_exists(tp, :shard)``.

A revoke reads the award (who got how many points) and deletes it in one transaction with
``ADD sc -points`` and a check that the issue is no longer resolved (open, in progress or
deleted). So a duplicated or retried award counts once, a revoke takes back exactly what was
given, and an award racing a reopen cannot land after it: the state of the awards follows the
state of the issues, and ``sync_issue`` (re-runnable at any time) repairs a missed hook.

Cost, transactional writes being charged twice: an award is 2 WCU per KB for each of the three
items (issue checked, award put, score updated) = 6 WCU for small items, plus the ``top`` index
entry the score moves (1 WCU for a new entry, 2 to move one: delete + put). A revoke is a
consistent GetItem (1 RCU) + the same transaction. Concurrent awards to one user conflict on their
score item (TransactionConflict) and are retried with full jitter. Reads are in ``reads``."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from ddbmodels.core import capacity, retry
from ddbmodels.core.errors import RETRYABLE_REASONS, Contention, response_code
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import PROJECT_SK, CollectionItem, IssueItem, collection_key
from ddbmodels.patterns import leaderboard
from ddbmodels.scores.model import (
    DEFAULT_SHARDS,
    AwardItem,
    ScoreItem,
    ScoresTableItem,
    award_key,
    points_for,
    score_key,
)
from ddbmodels.scores.reads import award_get

BACKOFF = retry.Backoff(attempts=8, base_s=0.005, cap_s=0.2)
CONDITION_FAILED = "ConditionalCheckFailed"


RETRYABLE = RETRYABLE_REASONS  # (the name scores has exported): core.errors' one list


class AwardContention(Contention, code="award_contention"):
    """Every attempt collided with another transaction on the same score; nothing was written."""


class Outcome(StrEnum):
    AWARDED = "awarded"
    ALREADY_AWARDED = "already_awarded"
    REVOKED = "revoked"
    NOTHING_TO_REVOKE = "nothing_to_revoke"
    NOT_ELIGIBLE = "not_eligible"  # the issue is not (or no longer) in a state for this change


@dataclass(frozen=True)
class Change:
    """What an award, revoke or sync did; ``changed`` when a score moved."""

    outcome: Outcome
    username: str | None = None
    points: int = 0
    attempts: int = 1

    @property
    def changed(self) -> bool:
        return self.outcome in (Outcome.AWARDED, Outcome.REVOKED)


def _transact(build: Callable[[TransactWrite], None], *, rng: random.Random | None = None) -> tuple[list[str], int]:
    """TransactWriteItems, retried while it only collides; ([], attempts) when it committed.

    Returns the cancellation reason codes (one per item, "None" for items that were fine) when a
    condition failed; raises on anything else, and AwardContention when every attempt collided.
    """
    for attempt in retry.attempts(BACKOFF, rng=rng):
        connection = ScoresTableItem._get_connection().connection
        try:
            with TransactWrite(
                connection=connection, client_request_token=uuid.uuid4().hex, return_consumed_capacity="TOTAL"
            ) as tx:
                build(tx)
        except TransactWriteError as error:
            if response_code(error) != "TransactionCanceledException":
                raise
            codes = [reason.code if reason else "None" for reason in error.cancellation_reasons]
            if CONDITION_FAILED in codes:
                return codes, attempt
            if not RETRYABLE.intersection(codes):
                raise
            continue  # collided: full-jitter backoff, then again
        return [], attempt
    raise AwardContention(f"gave up after {BACKOFF.attempts} conflicting attempts", attempts=BACKOFF.attempts)


def _settle(
    build: Callable[[TransactWrite], None],
    user: str,
    points: int,
    *,
    done: Outcome,
    refused: Outcome,
    mine: Callable[[], bool] | None = None,
) -> Change:
    """Run the transaction; what its cancellation reasons mean.

    Item 0 is always the issue's ConditionCheck (refused: NOT_ELIGIBLE), item 1 the award item
    (refused: ``refused`` — the award is already there, or already gone — unless ``mine()`` says
    the item refusing it is this call's own commit, whose answer was lost).
    """
    codes, attempts = _transact(build)
    if not codes:
        return Change(done, user, points, attempts)
    if codes[1] == CONDITION_FAILED and mine is not None and mine():
        return Change(done, user, points, attempts)
    if codes[1] == CONDITION_FAILED:
        return Change(refused, user, 0, attempts)
    return Change(Outcome.NOT_ELIGIBLE, user, 0, attempts)


@capacity.access_pattern("leaderboard.award")
def award_issue(issue: IssueItem, *, shards: int = DEFAULT_SHARDS) -> Change:
    """TransactWriteItems: ConditionCheck issue + Put award + Update score ADD — 6 WCU (+1–2 WCU index).

    Gives the issue's assignee the points of its priority, once. ALREADY_AWARDED when its award
    exists (nothing written); NOT_ELIGIBLE when the issue is not resolved and assigned, or
    changed since it was loaded (nothing written).
    """
    user = issue.assignee
    if issue.is_tombstone or issue.status != "resolved" or not user:
        return Change(Outcome.NOT_ELIGIBLE)
    tenant, points = issue.tenant, points_for(issue.priority)
    now = utcnow()
    shard = leaderboard.shard_of(user, shards)
    request = uuid.uuid4().hex
    key = award_key(tenant, issue.project_key, int(issue.number))

    def mine() -> bool:
        award = award_get(tenant=tenant, project_key=issue.project_key, number=int(issue.number))
        return award is not None and award.request == request

    def build(tx: TransactWrite) -> None:
        tx.condition_check(
            CollectionItem,
            issue.pk,
            issue.number,
            condition=(IssueItem.status == "resolved")
            & (IssueItem.assignee == user)
            & (IssueItem.priority == issue.priority)
            & IssueItem.deleted_at.does_not_exist(),
        )
        award = AwardItem(
            pk=key,
            tenant=tenant,
            username=user,
            points=points,
            reference=issue.reference,
            priority=issue.priority,
            awarded_at=now,
            updated_at=now,
            request=request,
        )
        tx.save(award, condition=AwardItem.pk.does_not_exist())
        tx.update(
            ScoreItem(pk=score_key(tenant, user)),
            actions=[
                ScoreItem.score.add(points),
                ScoreItem.awards.add(1),
                ScoreItem.shard_key.set(ScoreItem.shard_key | leaderboard.shard_key(tenant, shard)),
                ScoreItem.kind.set(ScoreItem),
                ScoreItem.tenant.set(tenant),
                ScoreItem.username.set(user),
                ScoreItem.updated_at.set(now),
            ],
        )

    return _settle(build, user, points, done=Outcome.AWARDED, refused=Outcome.ALREADY_AWARDED, mine=mine)


@capacity.access_pattern("leaderboard.revoke")
def revoke_issue(issue: IssueItem) -> Change:
    """GetItem award (1 RCU) + TransactWriteItems: ConditionCheck issue + Delete award + Update score ADD −.

    6 WCU for the three items + 2 WCU to move the score's ``top`` index entry (DynamoDB Local
    charges index entries written by a transaction twice: 10 WCU there; bench/patterns.py).

    Takes back exactly what the award gave (to whom it gave it). NOTHING_TO_REVOKE when there is
    no award; NOT_ELIGIBLE while the issue is live and resolved or closed (nothing written).
    """
    award = award_get(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))
    if award is None:
        return Change(Outcome.NOTHING_TO_REVOKE)
    if not issue.is_tombstone and issue.status in ("resolved", "closed"):
        return Change(Outcome.NOT_ELIGIBLE, award.username)
    points, user = int(award.points), award.username

    def build(tx: TransactWrite) -> None:
        tx.condition_check(
            CollectionItem,
            issue.pk,
            issue.number,
            condition=IssueItem.deleted_at.exists() | IssueItem.status.is_in("open", "in_progress"),
        )
        tx.delete(award, condition=(AwardItem.username == user) & (AwardItem.points == points))
        tx.update(
            ScoreItem(pk=score_key(issue.tenant, user)),
            actions=[ScoreItem.score.add(-points), ScoreItem.awards.add(-1), ScoreItem.updated_at.set(utcnow())],
        )

    return _settle(build, user, points, done=Outcome.REVOKED, refused=Outcome.NOTHING_TO_REVOKE)


@capacity.access_pattern("leaderboard.sync")
def sync_issue(issue: IssueItem, *, shards: int = DEFAULT_SHARDS) -> Change:
    """Make the award match the issue (load it consistently first) — 1 RCU, + 6–8 WCU when it must change.

    Resolved, live and assigned: awarded if missing. Open, in progress or deleted: revoked if
    present. Closed: left as it is (closing a resolved issue keeps its points; closing an open
    one never gave any). Safe to run again and again: this is the repair for a missed hook.
    """
    if not issue.is_tombstone and issue.status == "closed":
        return Change(Outcome.NOT_ELIGIBLE)
    if not issue.is_tombstone and issue.status == "resolved" and issue.assignee:
        existing = award_get(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))
        if existing is not None:
            return Change(Outcome.ALREADY_AWARDED, existing.username)
        return award_issue(issue, shards=shards)
    return revoke_issue(issue)


def sync_project(*, tenant: str, project_key: str, shards: int = DEFAULT_SHARDS) -> Iterator[Change]:
    """Query the project's issues (consistent, 1 RCU per 4 KB) and ``sync_issue`` each — + 1 RCU an issue, + writes.

    Yields one Change per issue, tombstones included (their points must go too).
    """
    issues = CollectionItem.query(
        collection_key(tenant, project_key),
        range_key_condition=CollectionItem.number > PROJECT_SK,
        consistent_read=True,
    )
    for issue in issues:
        if isinstance(issue, IssueItem):
            yield sync_issue(issue, shards=shards)


@capacity.access_pattern("leaderboard.add")
def score_add(*, tenant: str, username: str, points: int, shards: int = DEFAULT_SHARDS) -> None:
    """UpdateItem ADD sc :points — 1 WCU (+1–2 WCU index). The bare ADD without an award: seeding, benchmarks."""
    shard = leaderboard.shard_key(tenant, leaderboard.shard_of(username, shards))
    ScoreItem(pk=score_key(tenant, username)).update(
        actions=[
            ScoreItem.score.add(points),
            ScoreItem.shard_key.set(ScoreItem.shard_key | shard),
            ScoreItem.kind.set(ScoreItem),
            ScoreItem.tenant.set(tenant),
            ScoreItem.username.set(username),
            ScoreItem.updated_at.set(utcnow()),
        ]
    )
