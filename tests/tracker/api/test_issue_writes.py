"""Creating and changing issues by API (tracker/api/routers/issue_writes.py), over HTTP with a token.

Exactly once per Idempotency-Key (the same answer byte for byte, even after the issue changed; another body: 422,
nothing written; under 30 % lost DynamoDB answers each key's issue exists once), the form's rules (viewer 403,
another team 404, labels and milestones), and PATCH under If-Match (stale: 412 with the issue now, nothing written;
a move the workflow does not allow: 409, nothing written).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.issues import DESCRIPTION_MAX, LABEL_MAX, LABELS_MAX, TITLE_MAX, IssueItem
from tests import dynamodb_faults
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World
from tracker import optional_redis
from tracker.api.idempotency import digest
from tracker.api.routers import issue_writes
from tracker.models import Membership

pytestmark = pytest.mark.django_db
LOST_ANSWERS_SEED = 31


def body(response: Any) -> Any:
    return json.loads(response.content)


def url(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/projects/WEB/issues{suffix}"


def create(client: ApiClient, world: World, data: Any, key: str | None = "k-1") -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    sent = json.dumps(data) if isinstance(data, str) else data  # the test client sends a str as it is
    return client.post_json(url(world), sent, headers=headers)


def patch(client: ApiClient, world: World, data: Any, number: int = 1, if_match: str | None = None) -> Any:
    headers = {"If-Match": if_match} if if_match is not None else {}
    return client.patch_json(url(world, f"/{number}"), data, headers=headers)


def stored(world: World) -> list[IssueItem]:
    pk = f"{world.slug}#WEB"
    return [i for i in IssueItem.query(pk, consistent_read=True) if isinstance(i, IssueItem)]


def test_the_limits_are_the_issues_table_s() -> None:
    assert (issue_writes.TITLE_MAX, issue_writes.DESCRIPTION_MAX) == (TITLE_MAX, DESCRIPTION_MAX)
    assert (issue_writes.LABELS_MAX, issue_writes.LABEL_MAX) == (LABELS_MAX, LABEL_MAX)
    for title in ("a\r\nb", "a\u2028\u2029b", "a\x1cb"):
        assert issue_writes.clean_title(title) == ddb_issues.one_line(title)


def test_a_create_answers_the_issue_and_its_replay_the_same_bytes_after_a_change(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world)
    data = {"title": "Login\nfails", "description": " Steps \n", "priority": "high", "labels": ["Bug", "ui"]}
    first = create(client, world, data)
    assert first.status_code == 201, first.content
    created = body(first)
    assert created["title"] == "Login fails"
    assert (created["number"], created["status"], created["version"]) == (1, "open", 1)
    assert created["labels"] == ["bug", "ui"]  # new labels lower-cased, as the form does
    assert created["description"] == "Steps"
    assert created["reporter"] == world.member.username
    assert first["ETag"] == '"1"'
    assert first["Location"].endswith(url(world, "/1"))
    shown = client.get(url(world, "/1"))  # the GET renders the same issue the same way
    assert body(shown) == created
    assert patch(client, world, {"title": "Renamed", "status": "in_progress"}).status_code == 200
    again = create(client, world, data)
    assert again.status_code == 201
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert len(stored(world)) == 1


def test_a_key_with_another_body_is_a_422_and_a_post_without_a_key_a_400(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world)
    assert create(client, world, {"title": "One"}).status_code == 201
    reused = create(client, world, {"title": "Two"})
    assert reused.status_code == 422
    assert body(reused)["code"] == "idempotency_key_reused"
    missing = create(client, world, {"title": "Three"}, key=None)
    assert missing.status_code == 400
    assert [i.title for i in stored(world)] == ["One"]


def test_a_key_in_flight_is_a_409(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world)
    lock = f"api-key:{client.membership.user_id}:{digest('k-1')}"
    optional_redis.client().set(lock, "another-request", px=30_000)
    try:
        answer = create(client, world, {"title": "One"})
    finally:
        optional_redis.client().delete(lock)
    assert answer.status_code == 409
    assert body(answer)["code"] == "idempotency_key_in_flight"
    assert stored(world) == []


@pytest.mark.parametrize(
    "data",
    [
        "AAA",  # a JSON string is no issue (ninja's Schema would have called str.title)
        [],
        {"title": "A", "colour": "red"},  # unknown field
        {"title": " \n "},
        {"title": "x" * (TITLE_MAX + 1)},
        {"title": "A", "priority": "whenever"},
        {"title": "A", "labels": ["has space"]},
        {"title": "A", "labels": [f"l{i}" for i in range(LABELS_MAX + 1)]},
        {"title": "A", "assignee": "nobody-here"},
        {"title": "A", "milestone": "v9"},
    ],
)
def test_bad_input_is_a_422_and_creates_nothing(world: World, api_client: ApiClientFactory, data: Any) -> None:
    answer = create(api_client(world), world, data)
    assert answer.status_code == 422, answer.content
    assert stored(world) == []


def test_a_viewer_cannot_create_and_another_team_is_a_404(
    world: World, make_world: Callable[..., World], api_client: ApiClientFactory
) -> None:
    viewer = api_client(world, role="viewer", scope="read")
    assert create(viewer, world, {"title": "A"}).status_code == 403
    member = api_client(world)
    Membership.objects.filter(user=world.member, tenant=world.tenant).update(role="viewer")  # role lowered later
    assert create(member, world, {"title": "A"}).status_code == 403
    other = make_world()
    assert create(api_client(other), world, {"title": "A"}).status_code == 404
    assert stored(world) == []


def test_a_milestone_by_name_and_an_assignee_who_is_a_member(world: World, api_client: ApiClientFactory) -> None:
    milestone, _ = ddb_milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.0", due=None, created_by=world.owner.username
    )
    answer = create(api_client(world), world, {"title": "A", "milestone": "V1.0", "assignee": world.owner.username})
    assert answer.status_code == 201, answer.content
    assert body(answer)["milestone"] == {"id": milestone.milestone_id, "name": "v1.0"}
    assert body(answer)["assignee"] == world.owner.username
    assert stored(world)[0].milestone == milestone.milestone_id


@pytest.mark.django_db(transaction=True)
def test_creates_under_lost_answers_happen_once_per_key(
    make_world: Callable[..., World], api_client: ApiClientFactory, lost_answers: dynamodb_faults.LostAnswers
) -> None:
    dynamodb_faults.disarm_all()
    world = make_world()
    client = api_client(world)
    client.get(url(world, "/1"))  # the token's last-used time written before the threads (SQLite, one writer)
    dynamodb_faults.lose(lost_answers)
    keys = [f"key-{i}" for i in range(80)]

    def submit(key: str) -> tuple[int, bytes]:
        for _ in range(8):  # a program retries a 503 with the same key
            answer = create(client, world, {"title": f"Issue {key}"}, key=key)
            if answer.status_code != 503:
                return answer.status_code, answer.content
        raise AssertionError(f"{key}: still 503 after 8 tries")

    with ThreadPoolExecutor(8) as pool:
        results = dict(zip(keys, pool.map(submit, keys), strict=True))
    assert lost_answers.lost > 10
    dynamodb_faults.disarm_all()
    assert {status for status, _ in results.values()} == {201}
    titles = sorted(i.title for i in stored(world))
    assert titles == sorted(f"Issue {key}" for key in keys)  # each key's issue exactly once
    for key, (_, content) in results.items():  # each program was told its own issue
        assert json.loads(content)["title"] == f"Issue {key}"
    numbers = sorted(int(json.loads(content)["number"]) for _, content in results.values())
    assert numbers == list(range(1, len(keys) + 1))


def made(world: World, api_client: ApiClientFactory, **data: Any) -> ApiClient:
    client = api_client(world)
    assert create(client, world, {"title": "Original", **data}).status_code == 201
    return client


def test_a_patch_with_the_current_etag_changes_the_fields_and_answers_the_new_etag(
    world: World, api_client: ApiClientFactory
) -> None:
    client = made(world, api_client, labels=["Bug"])
    answer = patch(client, world, {"title": "New", "labels": ["bug", "UI"], "assignee": None}, if_match='"1"')
    assert answer.status_code == 200, answer.content
    assert (body(answer)["title"], body(answer)["labels"], body(answer)["version"]) == ("New", ["bug", "ui"], 2)
    assert answer["ETag"] == '"2"'
    assert stored(world)[0].title == "New"


def test_a_stale_if_match_is_a_412_with_the_issue_now_and_writes_nothing(
    world: World, api_client: ApiClientFactory
) -> None:
    client = made(world, api_client)
    assert patch(client, world, {"priority": "urgent"}).status_code == 200  # now version 2
    stale = patch(client, world, {"title": "Mine"}, if_match='"1"')
    assert stale.status_code == 412
    assert body(stale)["code"] == "precondition_failed"
    assert body(stale)["current"]["priority"] == "urgent"
    assert stale["ETag"] == '"2"'
    assert stored(world)[0].title == "Original"


def test_a_move_the_workflow_does_not_allow_is_a_409_and_changes_no_field(
    world: World, api_client: ApiClientFactory
) -> None:
    client = made(world, api_client)
    assert patch(client, world, {"status": "closed"}).status_code == 200
    refused = patch(client, world, {"title": "Also this", "status": "resolved"})  # closed → resolved: no
    assert refused.status_code == 409
    assert body(refused)["code"] == "invalid_transition"
    issue = stored(world)[0]
    assert (issue.title, issue.status) == ("Original", "closed")


def test_a_patch_by_a_viewer_is_a_403_and_of_a_missing_issue_a_404(world: World, api_client: ApiClientFactory) -> None:
    made(world, api_client)
    assert patch(api_client(world, role="viewer", scope="read"), world, {"title": "X"}).status_code == 403
    assert patch(api_client(world), world, {"title": "X"}, number=99).status_code == 404
    assert patch(api_client(world), world, {"title": None}).status_code == 422
    assert stored(world)[0].title == "Original"


def test_with_redis_down_a_create_still_happens_once(
    world: World, api_client: ApiClientFactory, settings: SettingsWrapper
) -> None:
    client = api_client(world)
    optional_redis.failed("a test", RuntimeError("Redis stopped"))  # paused: no lock, no cache
    try:
        first = create(client, world, {"title": "One"})
        again = create(client, world, {"title": "One"})
    finally:
        optional_redis.resume()
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert len(stored(world)) == 1


def test_a_patch_moves_the_issue_into_a_milestone_by_name_and_out_with_null(
    world: World, api_client: ApiClientFactory
) -> None:
    milestone, _ = ddb_milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v2", due=None, created_by=world.owner.username
    )
    client = made(world, api_client)
    moved = patch(client, world, {"milestone": "v2"})
    assert moved.status_code == 200, moved.content
    assert body(moved)["milestone"] == {"id": milestone.milestone_id, "name": "v2"}
    assert stored(world)[0].milestone == milestone.milestone_id
    unknown = patch(client, world, {"milestone": "v3"})
    assert unknown.status_code == 422
    out = patch(client, world, {"milestone": None})
    assert out.status_code == 200
    assert body(out)["milestone"] is None
    assert stored(world)[0].milestone is None
