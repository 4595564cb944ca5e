"""A person's own edit whose DynamoDB answer was lost is saved, said and recorded once (R22-1's class, H7).

The edit form, the status side form, the board's move, the delete page and the API's PATCH each make one
UpdateItem of the issue conditioned on the version the person loaded. When DynamoDB did it and its answer was lost,
botocore sends it again and the resend is refused by the call's own write. Before the fix that refusal was "changed
since you loaded it" (a 409 page, a 412) for the person's own saved change, and nothing was recorded: no history
event, no notification, no webhook delivery. Now the call knows its own write (``wf``) and records it, once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels import webhooks as ddb_webhooks
from ddbmodels.events import WEBHOOK_EVENTS, Kind
from tests import dynamodb_faults
from tests.tracker import test_replays_recorded as recorded
from tests.tracker.api.conftest import client_with_token
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue
from tests.tracker.test_replays_recorded import deliveries, history
from tests.tracker.webhooks.test_deliveries import register
from tracker.models import Membership

pytestmark = pytest.mark.django_db
EDITED, MOVED, DELETED = (WEBHOOK_EVENTS[k] for k in (Kind.ISSUE_EDITED, Kind.ISSUE_STATUS, Kind.ISSUE_DELETED))
COMMENT_EDITED = WEBHOOK_EVENTS[Kind.COMMENT_EDITED]
sends = recorded.sends  # the fixture: the webhook deliveries queued (their ids), nothing sent


@pytest.fixture
def lose_first(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[int]]:
    """``lose_first("issue_update")``: the first call of that write (of ``ddbmodels.issues``, or ``module``) loses its
    UpdateItem's answer (DynamoDB did it; botocore resends, refused by the write itself). Answers the number of
    answers lost (filled in as it runs)."""

    def arm(name: str, module: Any = ddb_issues) -> list[int]:
        real, lost = getattr(module, name), []

        def losing(issue: Any, **kwargs: Any) -> Any:
            if lost:
                return real(issue, **kwargs)
            answers = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=1))
            try:
                return real(issue, **kwargs)
            finally:
                lost.append(answers.lost)
                dynamodb_faults.disarm_all()

        monkeypatch.setattr(module, name, losing)
        return lost

    return arm


def armed(world: World, event: str, lose: Callable[..., list[int]], write: str) -> tuple[Any, list[int]]:
    """An endpoint for ``event``, WEB-1 ("Old title"), and ``write``'s first UpdateItem answer to be lost."""
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(event,))
    new_issue(world, "Old title")
    return endpoint, lose(write)


def recorded_once(world: World, endpoint: ddb_webhooks.EndpointItem, kind: str, sends: list[str]) -> None:
    assert len(history(world, 1, kind)) == 1
    [delivered] = deliveries(endpoint)
    assert (delivered["type"], delivered["data"]["issue"]["number"]) == (WEBHOOK_EVENTS[kind], 1)
    assert len(sends) == 1


def test_the_edit_form_whose_answer_was_lost_says_saved_and_records_the_edit_once(
    world: World, sends: list[str], lose_first: Callable[..., list[int]]
) -> None:
    endpoint, lost = armed(world, EDITED, lose_first, "issue_update")

    response = world.client_for(world.member).post(
        world.project_url("1/edit/"), {"title": "New title", "priority": "high", "version": 1}
    )

    assert lost == [1]
    assert response.status_code == 302, response.content.decode()[:400]
    assert flash(response) == ["Saved WEB-1."]
    stored = load(world, 1)
    assert stored is not None
    assert (stored.title, int(stored.version)) == ("New title", 2)
    recorded_once(world, endpoint, Kind.ISSUE_EDITED, sends)
    [edited] = history(world, 1, Kind.ISSUE_EDITED)
    assert edited.data["changed"] == {"title": ["Old title", "New title"], "priority": ["medium", "high"]}


def test_the_status_form_and_the_board_whose_answers_were_lost_move_the_issue_and_record_it_once(
    world: World, sends: list[str], lose_first: Callable[..., list[int]]
) -> None:
    endpoint, lost = armed(world, MOVED, lose_first, "issue_change_status")
    client = world.client_for(world.member)

    response = client.post(world.project_url("1/status/"), {"to": "in_progress", "version": 1})

    assert lost == [1]
    assert response.status_code == 302, response.content.decode()[:400]
    assert flash(response) == ["WEB-1 is now In progress."]
    recorded_once(world, endpoint, Kind.ISSUE_STATUS, sends)

    new_issue(world, "Board card")
    lost = lose_first("issue_change_status")
    moved = client.post(
        world.project_url("board/move/"), {"n": 2, "v": 1, "to": "resolved"}, HTTP_ACCEPT="application/json"
    )
    assert lost == [1]
    assert moved.status_code == 200, moved.content
    assert (json.loads(moved.content)["status"], json.loads(moved.content)["version"]) == ("resolved", 2)
    assert [e.data for e in history(world, 2, Kind.ISSUE_STATUS)] == [{"from": "open", "to": "resolved"}]
    assert len(sends) == 2


def test_a_delete_whose_answer_was_lost_is_deleted_and_recorded_once(
    world: World, sends: list[str], lose_first: Callable[..., list[int]]
) -> None:
    endpoint, lost = armed(world, DELETED, lose_first, "issue_tombstone")

    response = world.client_for(world.owner).post(world.project_url("1/delete/"), {"version": 1})

    assert lost == [1]
    assert response.status_code == 302, response.content.decode()[:400]
    stored = load(world, 1)
    assert stored is not None
    assert stored.is_tombstone
    [delivered] = deliveries(endpoint)
    assert (delivered["type"], len(sends)) == (DELETED, 1)


def test_an_api_patch_whose_answer_was_lost_answers_200_and_records_it_once(
    world: World, sends: list[str], lose_first: Callable[..., list[int]]
) -> None:
    membership = Membership.objects.select_related("tenant", "user").get(user=world.member, tenant=world.tenant)
    client = client_with_token(membership, scope="write")
    endpoint, lost = armed(world, EDITED, lose_first, "issue_update")

    answer = client.patch(
        f"/api/v1/teams/{world.slug}/projects/WEB/issues/1",
        {"title": "New title"},
        content_type="application/json",
        headers={"If-Match": '"1"'},
    )

    assert lost == [1]
    assert answer.status_code == 200, answer.content
    assert (json.loads(answer.content)["title"], answer["ETag"]) == ("New title", '"2"')
    recorded_once(world, endpoint, Kind.ISSUE_EDITED, sends)


def test_a_comment_edit_whose_answer_was_lost_is_saved_and_recorded_once(
    world: World, sends: list[str], lose_first: Callable[..., list[int]]
) -> None:
    """Comments already knew their own write (the edit's time and version, ``comments.comment_edit``): kept so."""
    endpoint = register(world, "http://127.0.0.1:9/hook", events=(COMMENT_EDITED,))
    new_issue(world)
    client = world.client_for(world.member)
    client.post(world.project_url("1/comments/"), {"body": "first words"})
    stream = ddb_comments.issue_stream(world.slug, "WEB", 1)
    (comment,) = ddb_comments.comment_page(stream=stream).comments
    lost = lose_first("comment_edit", ddb_comments)

    url = world.project_url(f"1/comments/{ddb_comments.comment_id(comment.key)}/edit/")
    response = client.post(url, {"body": "better words", "version": "1"})

    assert lost == [1]
    assert response.status_code == 302, response.content.decode()[:400]
    (stored,) = ddb_comments.comment_page(stream=stream).comments
    assert stored.body == "better words"
    assert len(history(world, 1, Kind.COMMENT_EDITED)) == 1
    [delivered] = deliveries(endpoint)
    assert (delivered["type"], len(sends)) == (COMMENT_EDITED, 1)
