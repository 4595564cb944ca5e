"""A change by a form that may be sent twice is recorded once, also when its answer was lost (R22-1's class, H6).

``issue_change`` (bulk edits, the issue page's milestone form, label renames, milestone closes) stores the form's
token on the issue. When DynamoDB's answer to its UpdateItem is lost, botocore sends it again and the resend is
refused by the call's own write: that call changed the issue and must record it (history event, notifications,
webhook delivery). A form whose first send was answered 503 after its write, sent again, records what the first
could not; a form sent twice (both answered) records once: the change's event key is deterministic (its time and
the form's token), so nothing is doubled.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ddbmodels import issues as ddb_issues
from ddbmodels import labels as ddb_labels
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.events import WEBHOOK_EVENTS, Kind
from ddbmodels.inbox import notification_page
from tests import dynamodb_faults
from tests.tracker import test_replays_recorded as recorded
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue
from tests.tracker.inbox_helpers import queued_fixture, run_queued_fixture  # noqa: F401  (fixtures: queued, run_queued)
from tests.tracker.test_milestones_pages import _milestone
from tests.tracker.test_replays_recorded import history
from tests.tracker.webhooks.test_deliveries import register
from tracker.models import Membership
from tracker.services import bulk, labels, milestone_close, milestones
from tracker.services import issues as issue_services

pytestmark = pytest.mark.django_db
UPDATED, LABELS_RENAMED = WEBHOOK_EVENTS[Kind.ISSUE_EDITED], WEBHOOK_EVENTS[Kind.ISSUE_LABELS_RENAMED]


sends = recorded.sends  # the fixture: the webhook deliveries queued (their ids), nothing sent


@pytest.fixture
def lost() -> Iterator[list[dynamodb_faults.LostAnswers]]:
    armed: list[dynamodb_faults.LostAnswers] = []
    yield armed
    dynamodb_faults.disarm_all()


def lose_inside_first(monkeypatch: pytest.MonkeyPatch, module: Any, armed: list[dynamodb_faults.LostAnswers]) -> None:
    """The first ``module.issue_change`` call loses its UpdateItem's answer (DynamoDB did it; botocore resends)."""
    real = module.issue_change

    def losing(issue: Any, **kwargs: Any) -> Any:
        if armed:
            return real(issue, **kwargs)
        armed.append(dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=1)))
        try:
            return real(issue, **kwargs)
        finally:
            dynamodb_faults.disarm_all()

    monkeypatch.setattr(module, "issue_change", losing)


def membership(world: World) -> Membership:
    return Membership.objects.select_related("tenant", "user").get(user=world.member, tenant=world.tenant)


def project(world: World) -> ddb_issues.ProjectItem:
    found = ddb_issues.project_get(tenant=world.slug, key=world.project_key)
    assert found is not None
    return found


def watched_issue(world: World, run_queued: Callable[[], Any]) -> ddb_issues.IssueItem:
    """A new issue assigned to the owner, its creation recorded (the owner watches it from then on)."""
    issue = new_issue(world, "Slow page", assignee=world.owner.username)
    issue_services.record_created(issue)
    run_queued()
    return issue


def deliveries(endpoint: ddb_webhooks.EndpointItem) -> list[dict[str, Any]]:
    items, _ = ddb_webhooks.delivery_page(endpoint.tenant, endpoint.id, size=100)
    return [json.loads(item.payload) for item in items]


def told(world: World, username: str) -> list[str]:
    page = notification_page(tenant=world.slug, username=username, read_through=None)
    return [note.event_key for note in page.items]


def test_a_bulk_change_whose_answer_was_lost_is_changed_and_recorded(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], lost: list[dynamodb_faults.LostAnswers]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(UPDATED,))
    issue = new_issue(world, "Slow page", assignee=world.owner.username)
    lose_inside_first(monkeypatch, bulk.issues, lost)

    outcomes = bulk.bulk_change(
        membership=membership(world),
        project=project(world),
        versions={1: int(issue.version)},
        change=bulk.BulkChange(priority="high"),
        token="bulk-form",
    )

    assert lost[0].lost == 1  # the UpdateItem's answer was lost, its resend refused by its own write
    assert [o.outcome for o in outcomes] == [bulk.CHANGED]
    stored = load(world, 1)
    assert stored is not None
    assert stored.priority == "high"
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert edited.data["changed"] == {"priority": ["medium", "high"]}
    [delivered] = deliveries(endpoint)
    assert (delivered["type"], delivered["data"]["issue"]["number"]) == (UPDATED, 1)
    assert len(sends) == 1


def test_a_bulk_form_sent_again_after_a_503_records_its_change_once(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], run_queued: Callable[[], Any]
) -> None:
    """The first send wrote and was answered 503 (botocore's retries ran out): the second records it."""
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(UPDATED,))
    issue = watched_issue(world, run_queued)
    real, calls = bulk.issues.issue_change, []

    def lossy(item: Any, **kwargs: Any) -> Any:
        done = real(item, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            raise Unavailable("the answer was lost")
        return done

    monkeypatch.setattr(bulk.issues, "issue_change", lossy)
    form = {"versions": {1: int(issue.version)}, "change": bulk.BulkChange(priority="high"), "token": "bulk-form"}
    with pytest.raises(Unavailable):
        bulk.bulk_change(membership=membership(world), project=project(world), **form)
    assert history(world, 1, Kind.ISSUE_EDITED) == []  # the first send stopped before recording

    outcomes = bulk.bulk_change(membership=membership(world), project=project(world), **form)
    run_queued()

    assert [o.outcome for o in outcomes] == [bulk.REPLAYED]  # the page still says "already done by this form"
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert (edited.actor, edited.data["changed"]) == (world.member.username, {"priority": ["medium", "high"]})
    assert len(deliveries(endpoint)) == 1
    assert told(world, world.owner.username).count(edited.t) == 1  # the assignee heard of it, once


def test_a_bulk_form_sent_twice_records_its_change_once_though_both_record(
    world: World, sends: list[str], run_queued: Callable[[], Any]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(UPDATED,))
    issue = watched_issue(world, run_queued)
    form = {"versions": {1: int(issue.version)}, "change": bulk.BulkChange(status="in_progress"), "token": "f"}
    first = bulk.bulk_change(membership=membership(world), project=project(world), **form)
    run_queued()
    again = bulk.bulk_change(membership=membership(world), project=project(world), **form)
    run_queued()

    assert [o.outcome for o in first + again] == [bulk.CHANGED, bulk.REPLAYED]
    [moved] = history(world, 1, Kind.ISSUE_STATUS)
    assert moved.data == {"from": "open", "to": "in_progress"}
    assert deliveries(endpoint) == []  # subscribed to issue.updated only: a status change is not one
    assert len(sends) == 0
    assert told(world, world.owner.username).count(moved.t) == 1


def test_the_issue_page_milestone_form_whose_answer_was_lost_is_saved_and_recorded(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], lost: list[dynamodb_faults.LostAnswers]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(UPDATED,))
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "In a milestone", milestone=v12.milestone_id)
    lose_inside_first(monkeypatch, milestones.ddb_issues, lost)

    changed = milestones.issue_milestone_set(
        membership=membership(world),
        project=project(world),
        issue=issue,
        expected_version=int(issue.version),
        milestone_id=None,  # out of it: a plain UpdateItem (a move into one is a transaction with its own token)
        token="side-form",
    )

    assert lost[0].lost == 1
    assert changed  # "Saved", not "Nothing to change"
    stored = load(world, 1)
    assert stored is not None
    assert stored.milestone is None
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert edited.data["changed"] == {"milestone": ["v1.2", None]}
    assert len(deliveries(endpoint)) == 1

    again = milestones.issue_milestone_set(  # the same form sent again: "nothing to change", nothing doubled
        membership=membership(world),
        project=project(world),
        issue=issue,
        expected_version=int(issue.version),
        milestone_id=None,
        token="side-form",
    )
    assert not again
    assert len(history(world, 1, Kind.ISSUE_EDITED)) == 1
    assert len(deliveries(endpoint)) == 1


def test_a_label_rename_whose_answer_was_lost_records_the_issue_moved(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], lost: list[dynamodb_faults.LostAnswers]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(LABELS_RENAMED,))
    new_issue(world, "Labelled", labels=["bug"])
    label = ddb_labels.label_get(world.slug, "bug")
    assert label is not None
    lose_inside_first(monkeypatch, labels.issues, lost)

    moved = labels.label_rename(membership=membership(world), name="bug", to="defect", expected_version=label.version)

    assert lost[0].lost == 1
    assert moved.moved == 1
    stored = load(world, 1)
    assert stored is not None
    assert stored.labels == {"defect"}
    [renamed] = history(world, 1, Kind.ISSUE_LABELS_RENAMED)
    assert (renamed.data["from"], renamed.data["to"]) == ("bug", "defect")
    assert len(deliveries(endpoint)) == 1


def test_a_milestone_close_whose_move_answer_was_lost_counts_and_records_the_move(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], lost: list[dynamodb_faults.LostAnswers]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(UPDATED,))
    v12 = _milestone(world, "v1.2")
    new_issue(world, "In a milestone", milestone=v12.milestone_id)
    lose_inside_first(monkeypatch, milestone_close.ddb_issues, lost)

    closed = milestone_close.milestone_close(
        membership=membership(world),
        project=project(world),
        milestone=v12,
        expected_version=int(v12.version),
        issues="remove",
        to=None,
        token="close-form",
    )

    assert lost[0].lost == 1
    assert (closed.closed, closed.moved) == (True, 1)
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert edited.data["changed"] == {"milestone": ["v1.2", None]}
    assert len(deliveries(endpoint)) == 1


def test_the_bulk_page_says_changed_when_the_answer_was_lost(
    world: World, monkeypatch: pytest.MonkeyPatch, lost: list[dynamodb_faults.LostAnswers]
) -> None:
    """As the person sees it: "Changed WEB-1", not "Already done by this form", and the issue's history says so."""
    from tests.tracker.test_bulk_pages import _list_form, _post

    new_issue(world, "Slow page")
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    lose_inside_first(monkeypatch, bulk.issues, lost)
    response = _post(member, world, key, rows, priority="high")
    assert lost[0].lost == 1
    assert flash(response) == ["Changed WEB-1: priority High."]
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert edited.data["changed"] == {"priority": ["medium", "high"]}


def test_a_label_rename_resumed_after_a_503_records_the_issue_its_first_run_moved(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str]
) -> None:
    """The first run's issue update committed, then it stopped (a 503) before the issue's label entries moved and
    before recording: the work list still holds the entry, and the run resumed finds the issue moved by its token
    (a replay) and records the move, once."""
    from ddbmodels.issues import writes

    endpoint = register(world, "http://127.0.0.1:9/hook", events=(LABELS_RENAMED,))
    new_issue(world, "Labelled", labels=["bug"])
    label = ddb_labels.label_get(world.slug, "bug")
    assert label is not None
    real, calls = writes.entries_move, []

    def stops(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise Unavailable("DynamoDB did not answer")
        return real(*args, **kwargs)

    monkeypatch.setattr(writes, "entries_move", stops)
    with pytest.raises(Unavailable):
        labels.label_rename(membership=membership(world), name="bug", to="defect", expected_version=label.version)
    assert history(world, 1, Kind.ISSUE_LABELS_RENAMED) == []
    busy = ddb_labels.label_get(world.slug, "bug")
    assert busy is not None
    assert busy.busy

    labels.label_move(tenant=world.slug, label=busy, actor=world.member.username)  # the labels page's Resume

    [renamed] = history(world, 1, Kind.ISSUE_LABELS_RENAMED)
    assert (renamed.data["from"], renamed.data["to"]) == ("bug", "defect")
    assert len(deliveries(endpoint)) == 1
    gone = ddb_labels.label_get(world.slug, "bug")
    assert gone is not None
    assert gone.state == ddb_labels.GONE
