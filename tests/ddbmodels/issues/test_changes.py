"""``issue_change`` on DynamoDB Local: one version-checked update carrying the form's token, exactly once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition, MilestoneNotOpen
from ddbmodels.issues.model import IssueItem
from tests.ddbmodels.conftest import load

pytestmark = pytest.mark.ddblocal

MakeIssues = Callable[..., list[IssueItem]]


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


def test_a_change_writes_only_what_changes_with_the_token_and_moves_the_lists_and_label_entries(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(2, labels=["bug", "ui"])
    issue = load(tenant, 1)

    change = issues.issue_change(
        issue, token="form-1", status="in_progress", assignee="alice", labels_add=["perf"], labels_remove=["ui"]
    )

    assert (change.changed, change.replayed) == (True, False)
    assert change.before == {"status": "open", "assignee": None, "labels": {"bug", "ui"}}
    assert change.after == {"status": "in_progress", "assignee": "alice", "labels": {"bug", "perf"}}
    stored = load(tenant, 1)
    assert (stored.status, stored.assignee, stored.labels, stored.bulk_token, stored.version) == (
        "in_progress",
        "alice",
        {"bug", "perf"},
        "form-1",
        2,
    )
    assert (stored.priority, stored.title) == ("medium", "issue 1")  # left alone
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="in_progress")) == ["WEB-1"]
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="open")) == ["WEB-2"]
    assert refs(issues.status_list(tenant=tenant, status="in_progress", assignee="alice")) == ["WEB-1"]
    assert refs(issues.label_list(tenant=tenant, label="perf", status="in_progress")) == ["WEB-1"]
    assert refs(issues.label_list(tenant=tenant, label="ui", status="open")) == ["WEB-2"]
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == ["WEB-2"]
    assert refs(issues.label_list(tenant=tenant, label="bug", status="in_progress")) == ["WEB-1"]


def test_the_same_token_again_writes_nothing_and_says_it_was_applied(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    stale = load(tenant, 1)  # the copy the form was built from
    issues.issue_change(load(tenant, 1), token="form-1", status="resolved", labels_add=["bug"])

    with capacity.measure() as meter:
        again = issues.issue_change(stale, token="form-1", status="resolved", labels_add=["bug"])
    assert (again.replayed, again.changed) == (True, False)
    assert (meter.conditional_failures, meter.wcu) == (1, 0)  # the refused update, then the GetItem
    assert meter.by_operation == {"UpdateItem": 1, "GetItem": 1}
    assert load(tenant, 1).version == 2

    with capacity.measure() as meter:  # the token on the copy as read: no request at all
        fresh = issues.issue_change(load(tenant, 1), token="form-1", status="resolved")
    assert fresh.replayed
    assert meter.requests == 1  # the load only


def test_another_token_on_a_changed_issue_is_changed_since_read_and_writes_nothing(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1)
    stale = load(tenant, 1)
    issues.issue_change(load(tenant, 1), token="form-1", priority="high")
    with pytest.raises(ChangedSinceRead):
        issues.issue_change(stale, token="form-2", priority="low")
    stored = load(tenant, 1)
    assert (stored.priority, stored.bulk_token, stored.version) == ("high", "form-1", 2)


def test_an_ordinary_edit_since_the_read_refuses_the_change(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    stale = load(tenant, 1)
    issues.issue_change_status(load(tenant, 1), to="in_progress")  # carries no token
    with pytest.raises(ChangedSinceRead):
        issues.issue_change(stale, token="form-1", status="resolved")
    assert load(tenant, 1).status == "in_progress"


def test_nothing_to_change_writes_nothing(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1, labels=["bug"], priority="high")
    issue = load(tenant, 1)
    with capacity.measure() as meter:
        change = issues.issue_change(
            issue, token="form-1", status="open", priority="high", labels_add=["bug"], labels_remove=["ui"]
        )
    assert (change.changed, change.replayed) == (False, False)
    assert meter.requests == 0
    assert load(tenant, 1).version == 1


def test_the_assignee_is_left_alone_unless_given_and_none_clears_it(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1, assignee="bob")
    issues.issue_change(load(tenant, 1), token="form-1", priority="low")
    assert load(tenant, 1).assignee == "bob"
    change = issues.issue_change(load(tenant, 1), token="form-2", assignee=None)
    assert change.after == {"assignee": None}
    assert load(tenant, 1).assignee is None
    assert refs(issues.status_list(tenant=tenant, status="open", assignee="bob")) == []


def test_a_move_the_workflow_forbids_and_bad_input_write_nothing(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    issues.issue_change(load(tenant, 1), token="form-1", status="closed")
    closed = load(tenant, 1)
    with pytest.raises(InvalidTransition):
        issues.issue_change(closed, token="form-2", status="resolved")
    with pytest.raises(InvalidInput):
        issues.issue_change(closed, token="form-2", priority="whenever")
    with pytest.raises(InvalidInput):
        issues.issue_change(closed, token="form-2", labels_add=[f"l{i}" for i in range(issues.LABELS_MAX + 1)])
    assert load(tenant, 1).version == 2


def test_a_deleted_issue_is_refused(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    issues.issue_tombstone(load(tenant, 1), by="owner")
    with pytest.raises(InvalidTransition):
        issues.issue_change(load(tenant, 1), token="form-1", priority="high")


def test_issues_for_change_reads_rows_versions_and_tokens_without_descriptions(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(3, description="long text")
    issues.issue_change(load(tenant, 2), token="form-1", status="closed")
    with capacity.measure() as meter:
        found = issues.issues_for_change(tenant=tenant, project_key="WEB", numbers=[1, 2, 2, 9])
    assert meter.by_operation == {"BatchGetItem": 1}
    assert sorted(found) == [1, 2]
    assert (found[2].status, found[2].version, found[2].bulk_token, found[2].description) == (
        "closed",
        2,
        "form-1",
        None,
    )
    change = issues.issue_change(found[1], token="form-2", labels_add=["x"])  # a row read this way is changeable
    assert change.changed
    assert load(tenant, 1).description == "long text"


@pytest.mark.skipif(not hasattr(IssueItem, "milestone"), reason="issues carry no milestone yet (ddbmodels.milestones)")
def test_a_milestone_is_passed_through_and_none_removes_it(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    made, _ = milestones.milestone_create(tenant=tenant, project_key="WEB", name="v1.2", due=None, created_by="x")
    before = load(tenant, 1)
    with capacity.measure() as meter:
        change = issues.issue_change(before, token="form-1", milestone=made.milestone_id)
    assert change.after == {"milestone": made.milestone_id}
    assert getattr(load(tenant, 1), "milestone", None) == made.milestone_id
    # Into a milestone: one TransactWriteItems [ConditionCheck the milestone (≤ 1 KB: 2 WCU), Update the issue].
    assert dict(meter.by_operation) == {"TransactWriteItems": 1}
    inside = load(tenant, 1)
    with capacity.measure() as out:
        issues.issue_change(inside, token="form-2", milestone=None)  # out of one: no check
    assert dict(out.by_operation) == {"UpdateItem": 1}
    # The same item and index entries as the plain UpdateItem out of it, twice (DynamoDB Local doubles a
    # transaction's index entries too; DynamoDB does not: bench row issues.change (milestone move)) + the check's 2.
    assert meter.wcu == 2 * out.wcu + 2
    assert getattr(load(tenant, 1), "milestone", None) is None
    with pytest.raises(MilestoneNotOpen, match="no longer exists"):  # a milestone that is not this project's
        issues.issue_change(load(tenant, 1), token="form-3", milestone="01MILESTONE")


def test_a_label_list_row_of_a_new_issue_carries_its_version_so_a_change_from_it_goes_through(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1, labels=["bug"])
    (row,) = issues.label_list(tenant=tenant, label="bug", status="open").issues
    assert row.version == load(tenant, 1).version == 1  # the create's entries: the version the put gave the issue
    change = issues.issue_change(row, token="form-1", priority="high")
    assert change.changed


def test_a_change_whose_answer_was_lost_is_this_calls_change_with_its_entries_moved(
    tenant: str, web_issues: MakeIssues
) -> None:
    """DynamoDB did the update, its answer was lost, botocore's resend was refused by it: changed, not replayed."""
    from tests import dynamodb_faults

    web_issues(1, labels=["bug", "ui"])
    issue = load(tenant, 1)
    lost = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=1))
    try:
        with capacity.measure() as meter:
            change = issues.issue_change(issue, token="form-1", priority="high", labels_remove=["ui"])
    finally:
        dynamodb_faults.disarm_all()

    assert lost.lost == 1
    assert meter.conditional_failures == 1  # the resend, refused by the call's own update
    assert (change.changed, change.replayed, change.to_record) == (True, False, True)
    assert change.before == {"priority": "medium", "labels": {"bug", "ui"}}
    assert change.after == {"priority": "high", "labels": {"bug"}}
    assert (change.issue.priority, change.issue.version) == ("high", 2)
    # the label entries the update moves next are moved all the same
    assert refs(issues.label_list(tenant=tenant, label="ui", status="open")) == []
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == ["WEB-1"]
    assert issues.label_list(tenant=tenant, label="bug", status="open").issues[0].priority == "high"


def test_a_replay_carries_the_change_it_replays_with_the_same_event_key(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    stale = load(tenant, 1)
    first = issues.issue_change(load(tenant, 1), token="form-1", status="resolved", labels_add=["bug"])
    again = issues.issue_change(stale, token="form-1", status="resolved", labels_add=["bug"])  # refused, read
    read = issues.issue_change(load(tenant, 1), token="form-1", status="resolved", labels_add=["bug"])  # no request
    other = issues.issue_change(load(tenant, 1), token="form-2", priority="low")

    for replay in (again, read):
        assert (replay.replayed, replay.changed, replay.to_record) == (True, False, True)
        assert (replay.before, replay.after, replay.at) == (first.before, first.after, first.at)
        assert replay.event_key("issue.status") == first.event_key("issue.status")
    assert first.event_key("issue.status") != first.event_key("issue.edited")  # one key per event of the change
    assert other.event_key("issue.edited") != first.event_key("issue.edited")
    assert first.before == {"status": "open", "labels": None}


def test_a_replay_of_a_change_stored_before_its_record_existed_is_a_bare_replay(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1)
    issues.issue_change(load(tenant, 1), token="form-1", priority="high")
    old = load(tenant, 1)
    old.bulk_change = None  # as an issue changed before ``bc`` was written reads
    replay = issues.issue_change(old, token="form-1", priority="high")
    assert (replay.replayed, replay.to_record, replay.event_key("x")) == (True, False, None)


def test_a_deleted_issue_keeps_no_form_token_nor_change_so_the_form_again_is_refused_as_deleted(
    tenant: str, web_issues: MakeIssues
) -> None:
    """R3-3 (third review): the tombstone removes ``bk`` and ``bc`` with the content they quote (assignee, labels),
    so the bulk form sent again on the deleted issue is "it was deleted", never a replay recorded on a tombstone."""
    web_issues(1, labels=["bug"])
    stale = load(tenant, 1)
    issues.issue_change(load(tenant, 1), token="form-1", assignee="alice", labels_add=["secret"])
    issues.issue_tombstone(load(tenant, 1), by="owner")
    gone = load(tenant, 1)
    assert (gone.bulk_token, gone.bulk_change) == (None, None)
    with pytest.raises((InvalidTransition, ChangedSinceRead)):
        issues.issue_change(stale, token="form-1", assignee="alice", labels_add=["secret"])
    with pytest.raises(InvalidTransition):
        issues.issue_change(gone, token="form-1", assignee="alice", labels_add=["secret"])
