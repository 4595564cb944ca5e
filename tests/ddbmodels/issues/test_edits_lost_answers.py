"""Single-issue edits whose DynamoDB answer was lost are the call's own success (R22-1's class, H7).

``issue_update``, ``issue_change_status`` and ``issue_tombstone`` are UpdateItems conditioned on the version the
caller read. When DynamoDB did the update and its answer was lost, botocore sends the same request again and the
resend is refused by the call's own write (the version moved on). The write carries a token of the call (``wf``):
the consistent GetItem the refusal makes finds it, so the call returns the issue as written (its label entries
moved), not ChangedSinceRead. A version another call moved on is still ChangedSinceRead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, is_unavailable
from ddbmodels.issues.model import IssueItem
from tests import dynamodb_faults
from tests.ddbmodels.conftest import load

pytestmark = pytest.mark.ddblocal

MakeIssues = Callable[..., list[IssueItem]]


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


@pytest.fixture
def lose_one() -> Iterator[Callable[[str], dynamodb_faults.LostAnswers]]:
    """Arm: the next request of that operation reaches DynamoDB Local, its answer is lost (botocore resends it)."""

    def arm(operation: str) -> dynamodb_faults.LostAnswers:
        return dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({operation}), rate=1.0, limit=1))

    yield arm
    dynamodb_faults.disarm_all()


def test_an_edit_whose_answer_was_lost_returns_the_issue_as_written_with_its_entries_moved(
    tenant: str, web_issues: MakeIssues, lose_one: Callable[[str], dynamodb_faults.LostAnswers]
) -> None:
    web_issues(1, labels=["bug", "ui"])
    issue = load(tenant, 1)
    lost = lose_one("UpdateItem")
    with capacity.measure() as meter:
        saved = issues.issue_update(
            issue, title="Renamed", description="", priority="high", assignee="alice", labels=["bug"]
        )
    dynamodb_faults.disarm_all()

    assert lost.lost == 1
    assert meter.conditional_failures == 1  # botocore's resend, refused by the call's own update
    assert saved is issue  # as a plain update: the item passed is the item as written
    assert (saved.title, saved.priority, saved.assignee, saved.labels, int(saved.version)) == (
        "Renamed",
        "high",
        "alice",
        {"bug"},
        2,
    )
    stored = load(tenant, 1)
    assert (stored.title, int(stored.version)) == ("Renamed", 2)
    assert refs(issues.label_list(tenant=tenant, label="ui", status="open")) == []
    assert [i.title for i in issues.label_list(tenant=tenant, label="bug", status="open").issues] == ["Renamed"]
    assert refs(issues.status_list(tenant=tenant, status="open", assignee="alice")) == ["WEB-1"]


def test_a_status_change_and_a_tombstone_whose_answers_were_lost_are_their_own_success(
    tenant: str, web_issues: MakeIssues, lose_one: Callable[[str], dynamodb_faults.LostAnswers]
) -> None:
    web_issues(1)
    lose_one("UpdateItem")
    moved = issues.issue_change_status(load(tenant, 1), to="in_progress")
    assert (moved.status, int(moved.version)) == ("in_progress", 2)
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="in_progress")) == ["WEB-1"]

    lose_one("UpdateItem")
    gone = issues.issue_tombstone(load(tenant, 1), by="owner")
    assert (gone.is_tombstone, gone.deleted_by, int(gone.version)) == (True, "owner", 3)
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="in_progress")) == []


def test_a_move_into_a_milestone_whose_transaction_answer_was_lost_is_its_own_success(
    tenant: str, web_issues: MakeIssues, lose_one: Callable[[str], dynamodb_faults.LostAnswers]
) -> None:
    """The guarded write is a TransactWriteItems with a ClientRequestToken: botocore's resend carries the same
    token, so DynamoDB answers it as the transaction it already did (the fence would answer it too)."""
    web_issues(1)
    made, _ = milestones.milestone_create(tenant=tenant, project_key="WEB", name="v1.2", due=None, created_by="x")
    issue = load(tenant, 1)
    lost = lose_one("TransactWriteItems")
    saved = issues.issue_update(
        issue,
        title=issue.title,
        description="",
        priority="medium",
        assignee=None,
        labels=[],
        milestone=made.milestone_id,
    )
    assert lost.lost == 1
    assert (saved.milestone, int(saved.version)) == (made.milestone_id, 2)
    assert (load(tenant, 1).milestone, int(load(tenant, 1).version)) == (made.milestone_id, 2)


def test_another_call_s_change_is_still_changed_since_read(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    stale = load(tenant, 1)
    issues.issue_change_status(load(tenant, 1), to="in_progress")
    with capacity.measure() as meter, pytest.raises(ChangedSinceRead):
        issues.issue_update(stale, title="Mine", description="", priority="medium", assignee=None, labels=[])
    assert meter.conditional_failures == 1
    assert (load(tenant, 1).title, int(load(tenant, 1).version)) == ("issue 1", 2)


def test_an_edit_whose_every_attempt_lost_its_answer_is_its_own_success(tenant: str, web_issues: MakeIssues) -> None:
    """R3-1 (third review): DynamoDB did the update, and every one of botocore's attempts lost its answer, so the
    call ends without one (botocore gives up). The consistent GetItem after that finds the call's token: the call's
    own success, not a 503 whose resend the person would then see refused as "changed since" (it has no key)."""
    web_issues(1, labels=["bug"])
    lost = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=100))
    try:
        saved = issues.issue_update(
            load(tenant, 1), title="Renamed", description="", priority="high", assignee=None, labels=["ui"]
        )
    finally:
        dynamodb_faults.disarm_all()
    assert lost.lost >= 2  # the first attempt and botocore's resends: none answered
    assert (saved.title, int(saved.version)) == ("Renamed", 2)
    assert (load(tenant, 1).title, int(load(tenant, 1).version)) == ("Renamed", 2)
    assert [i.title for i in issues.label_list(tenant=tenant, label="ui", status="open").issues] == ["Renamed"]
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == []


def test_an_edit_that_never_reached_dynamodb_is_still_unavailable(tenant: str, web_issues: MakeIssues) -> None:
    """The guard: when no attempt did the update, the read finds another token (or none) and the call fails as
    before (503), with nothing written."""
    web_issues(1)
    issue = load(tenant, 1)
    issues.issue_change_status(load(tenant, 1), to="in_progress")  # the stored token is another call's
    lost = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=100))
    try:
        with pytest.raises(Exception) as raised:  # noqa: PT011  (what botocore gives up with, wrapped by PynamoDB)
            issues.issue_update(issue, title="Mine", description="", priority="medium", assignee=None, labels=[])
    finally:
        dynamodb_faults.disarm_all()
    assert lost.lost >= 1
    assert is_unavailable(raised.value)
    assert (load(tenant, 1).title, int(load(tenant, 1).version)) == ("issue 1", 2)
