"""The reopen guard of a closing milestone (review round 4: R4-2, R4-4): it refuses only what a running close
could miss — a reopen of an issue that STAYS in the milestone being closed — and a bulk edit's refusal of one row
for that reason is that row's (and its milestone's), not the whole form's."""

from __future__ import annotations

from typing import Any

import pytest

from ddbmodels import issues
from ddbmodels.core.errors import MilestoneNotOpen
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tests.tracker.test_milestone_guarded_writes import _membership, _project, _set_state
from tests.tracker.test_milestones_pages import _in, _milestone
from tracker.services import bulk

REOPEN_REFUSED = "milestone v1.2 is being closed: reopen the issue once its close has ended"


def _resolved(world: World, number: int) -> issues.IssueItem:
    issue = load(world, number)
    assert issue is not None
    return issues.issue_change_status(issue, to="resolved")


def test_a_bulk_reopen_refused_in_a_closing_milestone_refuses_only_the_rows_in_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4-2: rows in no milestone or in another one are reopened; a later row in the closing one is refused with
    the same words without a write of its own."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    first, later = (_resolved(world, n) for n in _in(world, v12, 2))
    nowhere = issues.issue_change_status(new_issue(world, "nowhere"), to="resolved")
    [elsewhere_number] = _in(world, v13, 1)
    elsewhere = _resolved(world, elsewhere_number)
    assert nowhere.milestone is None
    _set_state(world, v12, "closing", token="a-close")
    writes: list[int] = []
    real = issues.issue_change

    def counted(issue: issues.IssueItem, **kw: Any) -> Any:
        writes.append(int(issue.number))
        return real(issue, **kw)

    monkeypatch.setattr(issues, "issue_change", counted)
    chosen = sorted([first, later, nowhere, elsewhere], key=lambda issue: int(issue.number))
    outcomes = bulk.bulk_change(
        membership=_membership(world),
        project=_project(world),
        versions={int(issue.number): int(issue.version) for issue in chosen},
        change=bulk.BulkChange(status="open"),
        token="bulk-reopen",
    )
    said = {o.reference: (o.outcome, o.why) for o in outcomes}
    assert said == {
        first.reference: (bulk.REFUSED, REOPEN_REFUSED),
        later.reference: (bulk.REFUSED, REOPEN_REFUSED),
        nowhere.reference: (bulk.CHANGED, ""),
        elsewhere.reference: (bulk.CHANGED, ""),
    }
    assert int(later.number) not in writes  # refused as its neighbour was, without a request
    assert [(load(world, int(i.number)) or i).status for i in (first, later, nowhere, elsewhere)] == [
        "resolved",
        "resolved",
        "open",
        "open",
    ]


def test_a_bulk_move_into_a_milestone_that_started_closing_still_refuses_the_later_rows(world: World) -> None:
    """R4-2's other half, unchanged: the form's own chosen milestone refused one row, so it refuses every later one
    (they would all be refused the same)."""
    v12 = _milestone(world, "v1.2")
    chosen = [new_issue(world, f"move {i}") for i in range(2)]
    _set_state(world, v12, "closing", token="a-close")
    with pytest.raises(Exception, match="closed or no longer exists"):  # the form's read refuses it whole
        bulk.bulk_change(
            membership=_membership(world),
            project=_project(world),
            versions={int(issue.number): int(issue.version) for issue in chosen},
            change=bulk.BulkChange(milestone=v12.milestone_id),
            token="bulk-move",
        )
    refused = MilestoneNotOpen(milestone=v12.milestone_id, name="v1.2", state="closing")
    assert bulk._not_open(refused, {}) == "milestone v1.2 is being closed"


def test_reopening_an_issue_while_taking_it_out_of_a_closing_milestone_is_allowed(world: World) -> None:
    """R4-4: an issue leaving the milestone cannot be missed by its close: the reopen is not checked against it."""
    v12 = _milestone(world, "v1.2")
    [number] = _in(world, v12, 1)
    resolved = _resolved(world, number)
    _set_state(world, v12, "closing", token="a-close")
    done = issues.issue_change(resolved, token="t", status="open", milestone=None)
    assert (done.issue.status, done.issue.milestone) == ("open", None)
    stored = load(world, number)
    assert stored is not None
    assert (stored.status, stored.milestone) == ("open", None)


def test_a_bulk_open_with_no_milestone_reopens_rows_of_a_closing_milestone(world: World) -> None:
    """R4-4 as the bulk bar sends it: "Open" + "no milestone"."""
    v12 = _milestone(world, "v1.2")
    [number] = _in(world, v12, 1)
    resolved = _resolved(world, number)
    _set_state(world, v12, "closing", token="a-close")
    [outcome] = bulk.bulk_change(
        membership=_membership(world),
        project=_project(world),
        versions={number: int(resolved.version)},
        change=bulk.BulkChange(status="open", milestone=None),
        token="bulk-open-out",
    )
    assert (outcome.outcome, outcome.why) == (bulk.CHANGED, "")


def test_reopening_an_issue_that_stays_in_a_closing_milestone_is_still_refused(world: World) -> None:
    """The guard R4-4 narrows still holds where it matters: staying in it (no milestone named in the write)."""
    v12 = _milestone(world, "v1.2")
    [number] = _in(world, v12, 1)
    resolved = _resolved(world, number)
    _set_state(world, v12, "closing", token="a-close")
    with pytest.raises(MilestoneNotOpen, match="reopen the issue once its close has ended"):
        issues.issue_change(resolved, token="t", status="open")
    with pytest.raises(MilestoneNotOpen, match="reopen the issue once its close has ended"):  # named, not moved
        issues.issue_change(resolved, token="t2", status="open", milestone=v12.milestone_id)
