"""A create whose answer was lost, then resent, is recorded once all the same (R22-1).

The first request writes the issue (or comment) and is answered 503 before it records it (DynamoDB committed,
botocore's retries ran out); the resent form or call replays it and records what the first could not: one
history event, one notification per person, one webhook delivery per endpoint. Recording it twice (a plain
double click, whose first request recorded everything) doubles none of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import comments as ddb_comments
from ddbmodels import events
from ddbmodels import issues as ddb_issues
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import issue_stream
from ddbmodels.events import WEBHOOK_EVENTS, Kind
from ddbmodels.inbox import notification_page
from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, new_issue
from tests.tracker.inbox_helpers import queued_fixture, run_queued_fixture  # noqa: F401  (fixtures: queued, run_queued)
from tests.tracker.webhooks.test_deliveries import register
from tracker import tasks
from tracker.models import Membership
from tracker.search.models import SearchDocument
from tracker.services import comments, issues

pytestmark = pytest.mark.django_db
CREATED, COMMENTED = WEBHOOK_EVENTS[Kind.ISSUE_CREATED], WEBHOOK_EVENTS[Kind.COMMENT_ADDED]


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The webhook deliveries queued (their ids); nothing is sent."""
    from tracker.services.webhooks import emit

    queued: list[str] = []
    monkeypatch.setattr(emit, "send_later", lambda tenant, endpoint, delivery, **kw: queued.append(delivery) or True)
    return queued


def lose_first_answer(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
    """The first call of ``module.name`` writes, then answers 503 (its answer lost after botocore's retries)."""
    real, calls = getattr(module, name), []

    def lossy(**kwargs: Any) -> Any:
        done = real(**kwargs)
        calls.append(1)
        if len(calls) == 1:
            raise Unavailable("the answer was lost")
        return done

    monkeypatch.setattr(module, name, lossy)


def history(world: World, number: int, kind: str) -> list[events.Event]:
    stream = issue_stream(world.slug, world.project_key, number)
    return [e for e in events.stream_events_all(stream=stream) if e.kind == kind]


def deliveries(endpoint: ddb_webhooks.EndpointItem) -> list[dict[str, Any]]:
    items, _ = ddb_webhooks.delivery_page(endpoint.tenant, endpoint.id, size=100)
    return [json.loads(item.payload) for item in items]


def told(world: World, username: str) -> list[str]:
    page = notification_page(tenant=world.slug, username=username, read_through=None)
    return [note.event_key for note in page.items]


def membership(world: World) -> Membership:
    return Membership.objects.select_related("tenant", "user").get(user=world.member, tenant=world.tenant)


def test_a_new_issue_form_resent_after_a_503_records_the_issue_once(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], run_queued: Callable[[], Any]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook")
    lose_first_answer(monkeypatch, issues.issues, "issue_create")
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")
    form = {"title": "Lost answer", "priority": "medium", "assignee": world.owner.username, "idempotency_key": key}

    assert client.post(world.project_url("new/"), form).status_code == 503
    again = client.post(world.project_url("new/"), form)
    assert (again.status_code, again["Location"]) == (302, world.project_url("1/"))
    run_queued()

    [created] = history(world, 1, Kind.ISSUE_CREATED)
    assert (created.actor, created.data) == (world.member.username, {"title": "Lost answer"})
    [delivered] = deliveries(endpoint)
    assert (delivered["type"], delivered["data"]["issue"]["number"]) == (CREATED, 1)
    assert len(sends) == 1
    assert told(world, world.owner.username) == [created.t]  # the assignee heard of it, once


def test_a_form_sent_twice_records_once_though_both_record(
    world: World,
    sends: list[str],
    run_queued: Callable[[], Any],
    monkeypatch: pytest.MonkeyPatch,
    settings: SettingsWrapper,
) -> None:
    """The first send recorded everything; the second records again under the same key: nothing doubled (the
    event, the delivery, the notification; the search document and the counts are brought up to DynamoDB's)."""
    settings.SEARCH_INDEX_QUEUE = True
    indexed: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.search_index_change, "apply_async", lambda *a, kwargs, **o: indexed.append(kwargs))
    counted: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.refresh_project_counts, "apply_async", lambda args, **o: counted.append(tuple(args)))
    endpoint = register(world, "http://127.0.0.1:9/hook")
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("new/")), "idempotency_key")
    form = {"title": "Double click", "priority": "medium", "assignee": world.owner.username, "idempotency_key": key}
    assert client.post(world.project_url("new/"), form).status_code == 302
    run_queued()
    assert client.post(world.project_url("new/"), form).status_code == 302
    run_queued()

    [created] = history(world, 1, Kind.ISSUE_CREATED)
    assert len(deliveries(endpoint)) == 1
    assert len(sends) == 1  # the second put was refused: nothing queued twice
    assert told(world, world.owner.username) == [created.t]
    assert len(indexed) == 2  # each send queued the document's update: run both, one document
    for change in indexed:
        tasks.search_index_change.apply(kwargs=change, throw=True)
    assert SearchDocument.objects.filter(tenant=world.slug, number=1).count() == 1
    for tenant, key in counted:  # the debounce may have kept the second out: each one queued, run
        tasks.refresh_project_counts.apply(args=(tenant, key), throw=True)
    assert counted
    project = ddb_issues.project_get(tenant=world.slug, key=world.project_key, consistent=True)
    assert project is not None
    assert project.live_count() == 1  # one issue counted, not two


def test_a_replay_of_a_deleted_issue_records_nothing(world: World, sends: list[str]) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook")
    issue = new_issue(world, "Gone")
    tombstone = ddb_issues.issue_tombstone(issue, by=world.owner.username)
    issues.record_created(tombstone)
    assert history(world, 1, Kind.ISSUE_CREATED) == []
    assert deliveries(endpoint) == []


def test_a_comment_resent_after_a_503_is_recorded_once(
    world: World, monkeypatch: pytest.MonkeyPatch, sends: list[str], run_queued: Callable[[], Any]
) -> None:
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(COMMENTED,))
    issue = new_issue(world, "Talk", reporter=world.owner.username)
    lose_first_answer(monkeypatch, comments.comments, "comment_add")
    body = f"Seen it, @{world.owner.username}"
    with pytest.raises(Unavailable):
        comments.comment_add(membership=membership(world), issue=issue, body=body, idempotency_key="c-1")
    added = comments.comment_add(membership=membership(world), issue=issue, body=body, idempotency_key="c-1")
    assert added.replayed
    run_queued()

    [event] = history(world, 1, Kind.COMMENT_ADDED)
    assert (event.data["comment"], event.actor) == (added.comment.key, world.member.username)
    [delivered] = deliveries(endpoint)
    assert delivered["type"] == COMMENTED
    assert told(world, world.owner.username) == [event.t]  # mentioned: told once
    assert ddb_comments.comment_count(stream=issue_stream(world.slug, "WEB", 1)) == 1
