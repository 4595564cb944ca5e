"""Awards follow the issue: stale copies, changed issues, repairs, and collisions that are retried."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from pynamodb.connection.base import Connection
from pynamodb.exceptions import CancellationReason, TransactWriteError, VerboseClientError

import ddbmodels
from ddbmodels import issues, scores
from ddbmodels.core import capacity
from ddbmodels.issues.model import IssueItem, ProjectItem
from ddbmodels.scores.model import POINTS, points_for, score_key
from tests.ddbmodels.conftest import load

MakeProject = Callable[..., ProjectItem]
MakeIssues = Callable[..., list[IssueItem]]
Outcome = scores.Outcome


def score_of(tenant: str, username: str) -> int:
    item = scores.score_get(tenant=tenant, username=username)
    return int(item.score) if item is not None else 0


def move(tenant: str, number: int, to: str) -> IssueItem:
    return issues.issue_change_status(load(tenant, number), to=to)


def test_points_grow_with_priority_and_an_unknown_priority_is_refused() -> None:
    assert [points_for(p) for p in ("low", "medium", "high", "urgent")] == [1, 2, 3, 5]
    with pytest.raises(ValueError, match="unknown priority"):
        points_for("critical")


def test_a_username_that_would_break_the_key_layout_is_refused() -> None:
    assert score_key("acme", "alice@example.com") == "acme#user#alice@example.com"
    for bad in ("a#b", "", "two words"):
        with pytest.raises(ValueError, match="invalid username"):
            score_key("acme", bad)


@pytest.mark.ddblocal
def test_an_issue_that_is_not_resolved_or_not_assigned_earns_nothing_and_nothing_is_written(
    tenant: str, web_project: ProjectItem, make_issues: MakeIssues
) -> None:
    open_issue, unassigned = make_issues(1, assignee="alice")[0], make_issues(1)[0]
    unassigned = move(tenant, int(unassigned.number), "resolved")
    with capacity.measure() as meter:
        assert scores.award_issue(open_issue).outcome is Outcome.NOT_ELIGIBLE
        assert scores.award_issue(unassigned).outcome is Outcome.NOT_ELIGIBLE
    assert meter.requests == 0
    assert score_of(tenant, "alice") == 0


@pytest.mark.ddblocal
def test_an_award_from_a_copy_loaded_before_a_reopen_cannot_land_after_it(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1, assignee="alice", priority="urgent")
    stale = move(tenant, 1, "resolved")  # the copy a slow award hook still holds
    move(tenant, 1, "open")
    with capacity.measure() as meter:
        assert scores.award_issue(stale).outcome is Outcome.NOT_ELIGIBLE
    assert meter.conditional_failures == 1  # the ConditionCheck on the issue refused it
    assert score_of(tenant, "alice") == 0
    assert scores.award_get(tenant=tenant, project_key="WEB", number=1) is None


@pytest.mark.ddblocal
def test_a_revoke_from_a_copy_loaded_before_the_issue_was_resolved_again_changes_nothing(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1, assignee="alice", priority="high")
    scores.award_issue(move(tenant, 1, "resolved"))
    reopened = move(tenant, 1, "open")
    # The reopen's revoke is slow; meanwhile the issue is resolved again (its award already exists).
    assert scores.award_issue(move(tenant, 1, "resolved")).outcome is Outcome.ALREADY_AWARDED
    assert scores.revoke_issue(reopened).outcome is Outcome.NOT_ELIGIBLE
    assert score_of(tenant, "alice") == POINTS["high"]


@pytest.mark.ddblocal
def test_a_revoke_takes_back_what_was_given_even_after_priority_and_assignee_changed(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1, assignee="alice", priority="urgent")
    given = scores.award_issue(move(tenant, 1, "resolved"))
    assert (given.outcome, given.username, given.points) == (Outcome.AWARDED, "alice", 5)
    issue = load(tenant, 1)
    issues.issue_update(issue, title=issue.title, description="", priority="low", assignee="bob", labels=())
    change = scores.revoke_issue(move(tenant, 1, "open"))
    assert (change.outcome, change.username, change.points) == (Outcome.REVOKED, "alice", 5)
    assert (score_of(tenant, "alice"), score_of(tenant, "bob")) == (0, 0)
    assert scores.score_get(tenant=tenant, username="bob") is None


@pytest.mark.ddblocal
def test_sync_repairs_a_missed_award_and_a_missed_revoke_and_then_does_nothing(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(3, assignee="alice", priority="medium")
    move(tenant, 1, "resolved")  # its award hook "failed"
    scores.award_issue(move(tenant, 2, "resolved"))
    move(tenant, 2, "open")  # its revoke hook "failed"
    scores.award_issue(move(tenant, 3, "resolved"))
    move(tenant, 3, "closed")  # closing a resolved issue keeps its points
    assert score_of(tenant, "alice") == 4
    outcomes = [c.outcome for c in scores.sync_project(tenant=tenant, project_key="WEB")]
    assert outcomes == [Outcome.AWARDED, Outcome.REVOKED, Outcome.NOT_ELIGIBLE]
    assert score_of(tenant, "alice") == 4  # 1 and 3 count, 2 does not
    assert [scores.award_get(tenant=tenant, project_key="WEB", number=n) is not None for n in (1, 2, 3)] == [
        True,
        False,
        True,
    ]
    again = [c.outcome for c in scores.sync_project(tenant=tenant, project_key="WEB")]
    assert again == [Outcome.ALREADY_AWARDED, Outcome.NOTHING_TO_REVOKE, Outcome.NOT_ELIGIBLE]
    assert score_of(tenant, "alice") == 4


# ---------------------------------------------------------------------------- collisions (moto)


@pytest.fixture
def collisions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The next N transactions fail as TransactionConflict on the score item; yields [N]."""
    remaining = [0]
    real = Connection.transact_write_items

    def transact(self: Connection, *args: Any, **kwargs: Any) -> dict:
        if remaining[0] > 0:
            remaining[0] -= 1
            reasons = [CancellationReason(code="None"), CancellationReason(code="None")]
            reasons.append(CancellationReason(code="TransactionConflict"))
            error = {"Error": {"Code": "TransactionCanceledException", "Message": "conflict"}}
            cause = VerboseClientError(error, "TransactWriteItems", cancellation_reasons=reasons)
            raise TransactWriteError("Failed to write transaction items", cause)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Connection, "transact_write_items", transact)
    monkeypatch.setattr(time, "sleep", lambda _: None)
    return remaining


def test_an_award_that_collides_with_another_transaction_is_retried_and_counts_once(
    moto_ddb: ddbmodels.DynamoSettings, web_issues: MakeIssues, tenant: str, collisions: list[int]
) -> None:
    web_issues(1, assignee="alice", priority="urgent")
    issue = move(tenant, 1, "resolved")
    collisions[0] = 3
    change = scores.award_issue(issue)
    assert (change.outcome, change.attempts) == (Outcome.AWARDED, 4)
    assert score_of(tenant, "alice") == 5


def test_an_award_that_always_collides_gives_up_with_a_domain_error_and_writes_nothing(
    moto_ddb: ddbmodels.DynamoSettings, web_issues: MakeIssues, tenant: str, collisions: list[int]
) -> None:
    web_issues(1, assignee="alice")
    issue = move(tenant, 1, "resolved")
    collisions[0] = scores.BACKOFF.attempts
    with pytest.raises(scores.AwardContention):
        scores.award_issue(issue)
    assert collisions[0] == 0
    assert scores.score_get(tenant=tenant, username="alice") is None
    assert scores.award_get(tenant=tenant, project_key="WEB", number=1) is None
