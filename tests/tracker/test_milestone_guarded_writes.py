"""A write that puts an issue INTO a milestone checks, in the same transaction, that the milestone is open (review
round 3, R3-1 and R3-11): a close that starts after a form's read can no longer end with open issues in it.

Probes of the review (notes/review3_probe.py) turned into tests of the fixed behaviour, plus the refusals told
apart (the milestone's state vs the issue's version), the replays, a reopen inside a closing milestone, and a
bulk edit racing a close in threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, MilestoneNotOpen
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tests.tracker.test_milestones_pages import _in, _listed, _milestone
from tracker.models import Membership
from tracker.services import bulk, milestone_close
from tracker.services import issues as issue_services
from tracker.services import milestones as milestone_services


def _membership(world: World) -> Membership:
    return Membership.objects.select_related("user", "tenant").get(user=world.member, tenant=world.tenant)


def _project(world: World) -> issues.ProjectItem:
    project = issues.project_get(tenant=world.slug, key="WEB")
    assert project is not None
    return project


def _set_state(world: World, milestone: milestones.MilestoneItem, state: str, **fields: Any) -> None:
    now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=milestone.milestone_id)
    assert now is not None
    milestones.milestone_set_state(now, state=state, expected_version=int(now.version), **fields)


def _open_in_closed(world: World) -> list[str]:
    """Every live open or in-progress issue of WEB that sits in a milestone that is not open (the invariant)."""
    states = {m.milestone_id: m.state for m in _listed(world)}
    wrong = []
    for number in range(1, issues.issue_number_next(tenant=world.slug, project_key="WEB")):
        issue = load(world, number)
        if issue is None or issue.is_tombstone or not issue.milestone:
            continue
        if issue.status in ("open", "in_progress") and states.get(issue.milestone) == "closed":
            wrong.append(f"WEB-{number}")
    return wrong


def test_bulk_refuses_the_rows_after_its_milestone_was_closed_meanwhile(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-1's probe: the bulk bar's check was one read before up to 50 writes; now each row's write checks."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    a, b = new_issue(world, "a"), new_issue(world, "b")
    membership, project = _membership(world), _project(world)
    real = issues.issue_change
    state = {"closed": False}

    def change(issue: Any, **kw: Any) -> Any:
        done = real(issue, **kw)
        if not state["closed"] and int(issue.number) == int(a.number):
            state["closed"] = True  # a teammate closes v1.2 (move to v1.3) while the bulk bar goes on
            now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
            assert now is not None
            closed = milestone_close.milestone_close(
                membership=membership,
                project=project,
                milestone=now,
                expected_version=int(now.version),
                issues="move",
                to=v13.milestone_id,
                token="close-form",
            )
            assert closed.closed
        return done

    monkeypatch.setattr(issues, "issue_change", change)
    outcomes = bulk.bulk_change(
        membership=membership,
        project=project,
        versions={int(a.number): int(a.version), int(b.number): int(b.version)},
        change=bulk.BulkChange(milestone=v12.milestone_id),
        token="bulk-form",
    )
    assert [o.outcome for o in outcomes] == [bulk.CHANGED, bulk.REFUSED]
    assert outcomes[1].why == "milestone v1.2 was closed meanwhile"
    assert {m.name: m.state for m in _listed(world)} == {"v1.2": "closed", "v1.3": "open"}
    after_b = load(world, int(b.number))
    assert after_b is not None
    assert after_b.milestone is None
    assert int(after_b.version) == int(b.version)
    assert _open_in_closed(world) == []


def test_the_write_itself_refuses_a_milestone_that_is_closing_or_closed(world: World) -> None:
    """ddbmodels' writes, without any service's pre-read: create, edit, change each refused, nothing written."""
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "a")
    _set_state(world, v12, "closing", token="c")
    with pytest.raises(MilestoneNotOpen) as refused:
        issues.issue_change(issue, token="t", milestone=v12.milestone_id)
    assert refused.value.context["milestone"] == v12.milestone_id
    assert str(refused.value) == "milestone v1.2 is being closed: choose an open one"
    with pytest.raises(MilestoneNotOpen):
        issues.issue_update(
            issue, title="a", description="", priority="medium", assignee=None, labels=(), milestone=v12.milestone_id
        )
    last = issues.issue_number_next(tenant=world.slug, project_key="WEB")
    with pytest.raises(MilestoneNotOpen):
        issues.issue_create(tenant=world.slug, project_key="WEB", title="b", reporter="x", milestone=v12.milestone_id)
    assert issues.issue_number_next(tenant=world.slug, project_key="WEB") == last  # no issue was made
    after = load(world, int(issue.number))
    assert after is not None
    assert after.milestone is None
    assert int(after.version) == int(issue.version)
    _set_state(world, v12, "closed")
    with pytest.raises(MilestoneNotOpen, match=r"milestone v1\.2 was closed: choose an open one"):
        issues.issue_change(issue, token="t2", milestone=v12.milestone_id)


def test_a_stale_version_is_told_apart_from_a_closed_milestone_and_a_replay_still_replays(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "a")
    done = issues.issue_change(issue, token="form-1", milestone=v12.milestone_id)
    assert done.changed
    _set_state(world, v12, "closing", token="c")
    again = issues.issue_change(issue, token="form-1", milestone=v12.milestone_id)  # the stale copy, same form
    assert again.replayed
    other = new_issue(world, "b")
    issues.issue_change(load(world, int(other.number)), token="somebody", priority="high")
    with pytest.raises(ChangedSinceRead):  # stale AND the milestone closing: the version is what it says
        issues.issue_change(other, token="form-2", milestone=v12.milestone_id)


def test_a_move_into_a_milestone_is_one_transaction_with_its_check(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "a")
    with capacity.measure() as meter:
        issues.issue_change(issue, token="t", milestone=v12.milestone_id)
    assert meter.by_operation["TransactWriteItems"] == 1
    assert meter.by_operation["UpdateItem"] == 0
    with capacity.measure() as plain:
        issues.issue_change(load(world, int(issue.number)), token="t2", priority="high")  # not into a milestone
    assert plain.by_operation["TransactWriteItems"] == 0


def test_reopening_inside_a_closing_milestone_is_refused_and_inside_a_closed_one_allowed(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    [n] = _in(world, v12, 1)
    resolved = issues.issue_change_status(load(world, n), to="resolved")
    _set_state(world, v12, "closing", token="c")
    with pytest.raises(
        MilestoneNotOpen, match=r"milestone v1\.2 is being closed: reopen the issue once its close has ended"
    ):
        issues.issue_change_status(resolved, to="open")
    with pytest.raises(MilestoneNotOpen):
        issues.issue_change(resolved, token="bulk", status="open")
    assert load(world, n).status == "resolved"
    _set_state(world, v12, "closed")
    reopened = issues.issue_change_status(load(world, n), to="open")  # as on GitHub: a closed one allows it
    assert reopened.status == "open"
    assert reopened.milestone == v12.milestone_id


def test_a_new_issue_form_sent_again_after_its_milestone_started_closing_is_its_replay(world: World) -> None:
    """R3-11's probe: the first send created WEB-n in v1.2; the same key again answers that issue."""
    v12 = _milestone(world, "v1.2")
    membership, project = _membership(world), _project(world)
    key = "01J00000000000000000000001"
    first = issue_services.issue_create_claim(
        membership=membership, project=project, title="t", idempotency_key=key, milestone=v12.milestone_id
    )
    _set_state(world, v12, "closing", token="c")
    again = issue_services.issue_create_claim(
        membership=membership, project=project, title="t", idempotency_key=key, milestone=v12.milestone_id
    )
    assert again.replayed
    assert again.number == first.number
    with pytest.raises(MilestoneNotOpen):  # a new form (another key) is refused
        issue_services.issue_create_claim(
            membership=membership,
            project=project,
            title="t",
            idempotency_key="01J00000000000000000000002",
            milestone=v12.milestone_id,
        )


def test_a_bulk_form_sent_again_after_its_milestone_started_closing_replays_its_rows(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    a, b = new_issue(world, "a"), new_issue(world, "b")
    membership, project = _membership(world), _project(world)
    versions = {int(a.number): int(a.version), int(b.number): int(b.version)}
    change = bulk.BulkChange(milestone=v12.milestone_id)
    first = bulk.bulk_change(membership=membership, project=project, versions=versions, change=change, token="k")
    assert [o.outcome for o in first] == [bulk.CHANGED, bulk.CHANGED]
    _set_state(world, v12, "closing", token="c")
    again = bulk.bulk_change(membership=membership, project=project, versions=versions, change=change, token="k")
    assert [o.outcome for o in again] == [bulk.REPLAYED, bulk.REPLAYED]


def test_the_issue_page_milestone_form_is_refused_by_the_write(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The side form's pre-read said open; the close started before its write: refused, nothing written."""
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "a")
    real = issues.issue_change

    def closing_first(item: Any, **kw: Any) -> Any:
        _set_state(world, v12, "closing", token="c")
        return real(item, **kw)

    monkeypatch.setattr(issues, "issue_change", closing_first)
    with pytest.raises(MilestoneNotOpen):
        milestone_services.issue_milestone_set(
            membership=_membership(world),
            project=_project(world),
            issue=issue,
            expected_version=int(issue.version),
            milestone_id=v12.milestone_id,
            token="side-form",
        )
    assert load(world, int(issue.number)).milestone is None


@pytest.mark.django_db(transaction=True)
def test_a_bulk_edit_racing_a_close_leaves_no_open_issue_in_a_closed_milestone(
    make_world: Callable[..., World], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads: a bulk edit of 10 issues into v1.2 while a teammate closes v1.2 (moving its open issues to v1.3).

    Each bulk row waits a little after its write (as rows of a slower DynamoDB would) and the close starts once
    the first row is in v1.2, so the close runs between the bulk bar's rows."""
    world = make_world()
    real = issues.issue_change
    first_row = threading.Event()

    def slow_change(issue: Any, **kw: Any) -> Any:
        done = real(issue, **kw)
        if kw.get("token", "").startswith("bulk-form"):
            first_row.set()
            time.sleep(0.05)
        return done

    monkeypatch.setattr(issues, "issue_change", slow_change)
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    made = [new_issue(world, f"task {i}") for i in range(10)]
    membership, project = _membership(world), _project(world)
    outcomes: list[Any] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def edit() -> None:
        try:
            start.wait()
            outcomes.extend(
                bulk.bulk_change(
                    membership=membership,
                    project=project,
                    versions={int(i.number): int(i.version) for i in made},
                    change=bulk.BulkChange(milestone=v12.milestone_id),
                    token="bulk-form",
                )
            )
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    def close() -> None:
        try:
            start.wait()
            assert first_row.wait(30)
            for _ in range(20):  # as soon as one issue is in it (a close of an empty list is one UpdateItem)
                now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
                assert now is not None
                try:
                    milestone_close.milestone_close(
                        membership=membership,
                        project=project,
                        milestone=now,
                        expected_version=int(now.version),
                        issues="move",
                        to=v13.milestone_id,
                        token="close-form",
                    )
                    return
                except ChangedSinceRead:
                    continue
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=edit), threading.Thread(target=close)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(outcomes) == 10
    assert {m.name: m.state for m in _listed(world)}["v1.2"] == "closed"
    refused = [o for o in outcomes if o.outcome == bulk.REFUSED]
    assert all(o.why in ("milestone v1.2 was closed meanwhile", "milestone v1.2 is being closed") for o in refused)
    assert _open_in_closed(world) == []


def test_the_new_issue_form_says_its_milestone_started_closing_and_the_errors_are_409(world: World) -> None:
    from tests.tracker.helpers import hidden_value
    from tracker import error_pages
    from tracker.api.problems import domain_problem

    v12 = _milestone(world, "v1.2")
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")  # v1.2 offered: open
    _set_state(world, v12, "closing", token="c")
    last = issues.issue_number_next(tenant=world.slug, project_key="WEB")
    form = {"title": "late", "priority": "medium", "idempotency_key": key, "milestone": v12.milestone_id}
    response = client.post(world.project_url("new/"), form)
    assert response.status_code == 409
    assert response.context["form"].errors["milestone"] == ["Milestone v1.2 is being closed: choose an open one."]
    assert issues.issue_number_next(tenant=world.slug, project_key="WEB") == last
    refused = MilestoneNotOpen(milestone=v12.milestone_id, name="v1.2", state="closed")
    api_answer = domain_problem(refused)  # the API's status is the page's (one map: error_pages.answer)
    assert api_answer is not None
    assert api_answer.status_code == 409
    answer = error_pages.answer(refused)
    assert answer is not None
    assert (answer.status, answer.message) == (
        409,
        "Milestone v1.2 was closed: choose an open one. Nothing was changed.",
    )


def test_a_move_into_a_milestone_whose_answer_is_lost_happens_once(world: World) -> None:
    """botocore sends the transaction again with its ClientRequestToken: DynamoDB answers the first commit."""
    from tests import dynamodb_faults

    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "a")
    version = int(issue.version)
    lost = dynamodb_faults.LostAnswers(frozenset({"TransactWriteItems"}), rate=1.0, limit=2)
    dynamodb_faults.lose(lost)
    try:
        done = issues.issue_change(issue, token="form-1", milestone=v12.milestone_id)
        created = issues.issue_create(
            tenant=world.slug, project_key="WEB", title="b", reporter="x", milestone=v12.milestone_id
        )
    finally:
        dynamodb_faults.disarm_all()
    assert lost.lost == 2  # the move's first answer and the create's
    assert done.changed
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.milestone, int(after.version)) == (v12.milestone_id, version + 1)
    assert created.item.milestone == v12.milestone_id
    assert issues.issue_number_next(tenant=world.slug, project_key="WEB") == int(created.number) + 1


def test_the_board_and_the_status_form_refuse_a_reopen_inside_a_closing_milestone(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    [n] = _in(world, v12, 1)
    resolved = issues.issue_change_status(load(world, n), to="resolved")
    _set_state(world, v12, "closing", token="c")
    client = world.client_for(world.member)
    form = {"n": n, "v": int(resolved.version), "to": "open"}
    fetched = client.post(world.project_url("board/move/"), form, HTTP_ACCEPT="application/json")
    assert fetched.status_code == 409
    answer = fetched.json()
    assert answer["error"] == "milestone_not_open"
    assert answer["message"] == (
        f"WEB-{n}: milestone v1.2 is being closed: reopen the issue once its close has ended. Nothing was moved."
    )
    assert answer["current"]["status"] == "resolved"
    posted = client.post(world.project_url("board/move/"), form)
    assert posted.status_code == 409
    assert "Milestone v1.2 is being closed: reopen the issue once its close has ended." in posted.content.decode()
    assert load(world, n).status == "resolved"
