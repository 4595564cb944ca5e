"""A create sent again answers its first answer whatever changed since (R22-3), and one resource reads the same in
every answer (times to the millisecond).

The key's record is read before the create's checks (``tracker.services.replays``): the assignee left, the
milestone was renamed, a label is being renamed, the caller's role was lowered, the comment was deleted — the
replay is the first 201, byte for byte, and nothing is written again. A new create under a new key still meets
every check.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.issues import IssueItem
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World
from tracker.api.routers import issue_writes
from tracker.models import Membership, Role
from tracker.services import milestones as milestone_services

pytestmark = pytest.mark.django_db


def body(response: Any) -> Any:
    return json.loads(response.content)


def issues_url(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/projects/WEB/issues{suffix}"


def create(client: ApiClient, world: World, data: dict[str, Any], key: str = "k-1") -> Any:
    return client.post_json(issues_url(world), data, headers={"Idempotency-Key": key})


def stored(world: World) -> list[IssueItem]:
    return [i for i in IssueItem.query(f"{world.slug}#WEB", consistent_read=True) if isinstance(i, IssueItem)]


def set_role(world: World, user: Any, role: str) -> None:
    Membership.objects.filter(user=user, tenant=world.tenant).update(role=role)


def assert_replayed(again: Any, first: Any) -> None:
    assert again.status_code == 201, again.content
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content


# ------------------------------------------------------------------- issues


def test_an_issue_replay_after_its_assignee_left_is_the_first_201(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A", "assignee": world.viewer.username})
    assert first.status_code == 422  # a viewer is no assignee: the check runs for a new create
    first = create(client, world, {"title": "A", "assignee": world.owner.username})
    assert first.status_code == 201, first.content
    Membership.objects.filter(user=world.owner, tenant=world.tenant).delete()  # the assignee left the team
    assert_replayed(create(client, world, {"title": "A", "assignee": world.owner.username}), first)
    assert len(stored(world)) == 1
    refused = create(client, world, {"title": "A", "assignee": world.owner.username}, key="k-2")
    assert refused.status_code == 422  # a new key is a new create: checked


def test_an_issue_replay_after_its_milestone_was_renamed_is_the_first_201(
    world: World, api_client: ApiClientFactory
) -> None:
    milestone, _ = ddb_milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.0", due=None, created_by=world.owner.username
    )
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A", "milestone": "v1.0"})
    assert body(first)["milestone"] == {"id": milestone.milestone_id, "name": "v1.0"}
    owner = Membership.objects.select_related("tenant", "user").get(user=world.owner, tenant=world.tenant)
    milestone_services.milestone_update(  # the service: the project's cached milestones follow
        membership=owner, milestone=milestone, expected_version=1, name="v1.0-final", due=None, description=""
    )
    again = create(client, world, {"title": "A", "milestone": "v1.0"})
    assert again.status_code == 201, again.content
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content  # byte for byte: the milestone named as the first answer named it (R2-5)
    assert body(again)["milestone"] == {"id": milestone.milestone_id, "name": "v1.0"}
    assert len(stored(world)) == 1


def test_an_issue_replay_while_its_label_is_being_renamed_is_the_first_201(
    world: World, api_client: ApiClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A", "labels": ["bug"]})
    assert first.status_code == 201, first.content
    busy = {"bug": "“bug” is being renamed; choose another label or try again when that is done."}
    monkeypatch.setattr(issue_writes, "label_refusals", lambda found: busy)
    assert_replayed(create(client, world, {"title": "A", "labels": ["bug"]}), first)
    assert create(client, world, {"title": "A", "labels": ["bug"]}, key="k-2").status_code == 422
    assert len(stored(world)) == 1


def test_an_issue_replay_after_the_callers_role_was_lowered_is_the_first_201(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A"})
    set_role(world, world.member, Role.VIEWER)
    assert_replayed(create(client, world, {"title": "A"}), first)
    assert create(client, world, {"title": "A"}, key="k-2").status_code == 403  # a new create: the role now
    assert len(stored(world)) == 1


def test_a_read_token_gets_no_replay(world: World, api_client: ApiClientFactory) -> None:
    writer, reader = api_client(world, role="member"), api_client(world, role="member", scope="read")
    assert create(writer, world, {"title": "A"}).status_code == 201
    assert create(reader, world, {"title": "A"}).status_code == 403  # its scope could never create it


def test_an_issue_replay_after_it_was_deleted_is_the_first_201(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A"})
    issue = stored(world)[0]
    ddb_issues.issue_tombstone(issue, by=world.owner.username)
    assert_replayed(create(client, world, {"title": "A"}), first)


# ------------------------------------------------------------------- comments


def comments_url(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/projects/WEB/issues/1/comments{suffix}"


@pytest.fixture
def issue_world(world: World) -> World:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Has comments", reporter=world.member.username)
    return world


def comment(client: ApiClient, world: World, text: str = "Looks good", key: str = "c-1") -> Any:
    return client.post_json(comments_url(world), {"body": text}, headers={"Idempotency-Key": key})


def test_a_comment_replay_after_it_was_deleted_is_the_first_201(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(issue_world, role="member")
    first = comment(client, issue_world)
    assert first.status_code == 201, first.content
    assert client.delete(comments_url(issue_world, f"/{body(first)['id']}")).status_code == 204
    assert_replayed(comment(client, issue_world), first)
    assert body(client.get(comments_url(issue_world)))["items"] == []  # not added again


def test_a_comment_replay_after_the_callers_role_was_lowered_is_the_first_201(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(issue_world, role="member")
    first = comment(client, issue_world)
    set_role(issue_world, issue_world.member, Role.VIEWER)
    assert_replayed(comment(client, issue_world), first)
    assert comment(client, issue_world, key="c-2").status_code == 403


def test_a_comment_reads_the_same_in_its_post_and_its_get(issue_world: World, api_client: ApiClientFactory) -> None:
    client = api_client(issue_world, role="member")
    for n in range(5):  # each a new time: one with microseconds past its millisecond is all but certain
        first = comment(client, issue_world, f"text {n}", key=f"c-{n}")
        got = client.get(comments_url(issue_world, f"/{body(first)['id']}"))
        assert body(first) == body(got)
        assert json.loads(client.get(comments_url(issue_world)).content)["items"][n] == body(first)


# ------------------------------------------------------------------- orders and times


def order(client: ApiClient, world: World, key: str = "o-1") -> Any:
    data = {"product": "seats", "quantity": 2}
    return client.post_json(f"/api/v1/teams/{world.slug}/orders", data, headers={"Idempotency-Key": key})


def test_an_order_replay_after_the_callers_role_was_lowered_is_the_first_201_and_draws_no_number(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world, role="member")
    first = order(client, world)
    assert first.status_code == 201, first.content
    set_role(world, world.member, Role.VIEWER)
    again = order(client, world)
    assert_replayed(again, first)
    assert again["X-DynamoDB-WCU"] == "0"  # no number drawn, nothing written
    assert order(client, world, key="o-2").status_code == 403


def test_an_order_and_an_issue_read_the_same_in_their_post_their_get_and_a_412(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world, role="member")
    placed = order(client, world)
    assert body(placed) == body(client.get(f"/api/v1/teams/{world.slug}/orders/{body(placed)['number']}"))
    made = create(client, world, {"title": "A"})
    assert body(made) == body(client.get(issues_url(world, "/1")))
    stale = client.patch_json(issues_url(world, "/1"), {"title": "B"}, headers={"If-Match": '"7"'})
    assert stale.status_code == 412
    assert body(stale)["current"] == body(client.get(issues_url(world, "/1")))


# ------------------------------------------------------------------- webhooks


def register(client: ApiClient, world: World, key: str = "w-1") -> Any:
    data = {"url": "http://127.0.0.1:9/hook", "events": ["issue.created"]}
    return client.post_json(f"/api/v1/teams/{world.slug}/webhooks", data, headers={"Idempotency-Key": key})


def test_a_webhook_replay_after_its_url_became_refused_is_the_first_201(
    world: World, api_client: ApiClientFactory, settings: Any
) -> None:
    client = api_client(world, role="owner", scope="admin")
    first = register(client, world)
    assert first.status_code == 201, first.content
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # its address is now refused (a private one, as a name may come to be)
    again = register(client, world)
    assert_replayed(again, first)
    assert again["X-DynamoDB-WCU"] == "0"
    assert register(client, world, key="w-2").status_code == 400  # a new registration: checked (invalid_input)


def spent(response: Any) -> tuple[int, float, float]:
    return (
        int(response["X-DynamoDB-Requests"]),
        float(response["X-DynamoDB-RCU"]),
        float(response["X-DynamoDB-WCU"]),
    )


def test_what_a_create_and_its_replay_cost(world: World, api_client: ApiClientFactory) -> None:
    """The figures the operations state: the key's record first (1 RCU) on every create; a replay reads the record
    and the item (consistent), writes nothing new (its recording again is refused: the event's put, 1 WCU)."""
    client = api_client(world, role="member")
    first = create(client, world, {"title": "A"})
    again = create(client, world, {"title": "A"})
    assert spent(first)[1] == 4.5  # 1 the key's record + 1 the project + 1 the largest number + the rest as before
    assert spent(again) == (4, 2.0, 1.0)  # the record and the issue; the recording again: the event's put refused
    owner = api_client(world, role="owner", scope="admin")
    hook = register(owner, world)
    assert spent(hook)[1:] == (1.0, 1.0)  # the key's endpoint first (the team's list cached), the PutItem
    assert spent(register(owner, world)) == (1, 1.0, 0.0)  # the key's endpoint, consistent: nothing else


def test_a_webhook_reads_the_same_in_its_post_and_its_get(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world, role="owner", scope="admin")
    made = body(register(client, world))
    got = body(client.get(f"/api/v1/teams/{world.slug}/webhooks/{made['id']}"))
    assert {k: v for k, v in made.items() if k != "secret"} == got
