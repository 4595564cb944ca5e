"""An issue's comments by API: pages with the issue page's cursors, one with its ETag, add exactly once, edit and
delete one's own under ``If-Match``.

What the pages refuse, the API refuses with the same rule: a viewer cannot comment (403), only the author edits or
deletes (403), another team's issue is a 404, a comment edited since the version ``If-Match`` names is a 412 with
the comment as it is now and nothing written.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbmodels import comments as ddb_comments
from ddbmodels import issues as ddb_issues
from ddbmodels.core.keys import issue_stream
from tests.tracker.api.conftest import ApiClient, ApiClientFactory
from tests.tracker.conftest import World
from tracker.api.routers import comments as comment_routes
from tracker.models import Membership
from tracker.selectors.issues import project_issue_access
from tracker.services import comments as comment_services

pytestmark = pytest.mark.django_db


def body(response: Any) -> Any:
    return json.loads(response.content)


@pytest.fixture
def issue_world(world: World) -> World:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Has comments", reporter=world.member.username)
    return world


def url(world: World, suffix: str = "", number: int = 1) -> str:
    return f"/api/v1/teams/{world.slug}/projects/WEB/issues/{number}/comments{suffix}"


def add(world: World, role: str, text: str) -> str:
    """A comment added as the pages add it; its id."""
    user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
    membership = Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)
    _, issue = project_issue_access(tenant=world.tenant, project_key="WEB", number=1)
    return comment_services.comment_add(membership=membership, issue=issue, body=text).comment.comment_id


def stored(world: World) -> list[str]:
    """The issue's comments' bodies as DynamoDB holds them, oldest first."""
    page = ddb_comments.comment_page(stream=issue_stream(world.slug, "WEB", 1))
    return [comment.body for comment in page.comments]


def post(client: ApiClient, world: World, text: Any, key: str | None = "k-1") -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post_json(url(world), {"body": text} if isinstance(text, str) else text, headers=headers)


def test_the_length_limit_is_the_comments_own() -> None:
    assert comment_routes.BODY_MAX == ddb_comments.BODY_MAX


def test_comments_page_oldest_first_with_the_issue_pages_cursors(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    for i in range(23):
        add(issue_world, "member", f"comment {i}")
    client = api_client(issue_world, role="viewer", scope="read")
    first = client.get(url(issue_world))
    assert first.status_code == 200
    page = body(first)
    assert [c["body"] for c in page["items"]] == [f"comment {i}" for i in range(20)]
    assert page["prev_cursor"] is None
    assert 'rel="next"' in first["Link"]
    second = body(client.get(url(issue_world, f"?cursor={page['next_cursor']}")))
    assert [c["body"] for c in second["items"]] == ["comment 20", "comment 21", "comment 22"]
    assert second["next_cursor"] is None
    back = body(client.get(url(issue_world, f"?cursor={second['prev_cursor']}")))
    assert [c["body"] for c in back["items"]] == [f"comment {i}" for i in range(20)]


def test_a_cursor_of_another_issue_or_tampered_is_a_400(issue_world: World, api_client: ApiClientFactory) -> None:
    ddb_issues.issue_create(tenant=issue_world.slug, project_key="WEB", title="Other", reporter="x")
    client = api_client(issue_world, role="viewer", scope="read")
    latest = body(client.get(url(issue_world)))["latest_cursor"]
    assert client.get(url(issue_world, f"?cursor={latest}")).status_code == 200
    assert client.get(url(issue_world, f"?cursor={latest}", number=2)).status_code == 400
    assert client.get(url(issue_world, f"?cursor={latest[:-3]}abc")).status_code == 400


def test_another_teams_issue_and_a_missing_one_are_404s(
    issue_world: World, other_world: World, api_client: ApiClientFactory
) -> None:
    ddb_issues.issue_create(tenant=other_world.slug, project_key="WEB", title="Theirs", reporter="x")
    client = api_client(issue_world, role="owner", scope="write")
    assert client.get(url(other_world)).status_code == 404
    assert post(client, other_world, "hello").status_code == 404
    assert client.get(url(issue_world, number=9)).status_code == 404
    assert stored(other_world) == []


def test_a_member_adds_a_comment_once_per_key_and_the_replay_is_byte_identical(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(issue_world, role="member", scope="write")
    first = post(client, issue_world, "\r\nLooks **good**\r\n")
    assert first.status_code == 201
    made = body(first)
    assert (made["author"], made["body"], made["version"], made["edited"]) == (
        issue_world.member.username,
        "Looks **good**",
        1,
        False,
    )
    assert first["Location"].endswith(url(issue_world, f"/{made['id']}"))
    again = post(client, issue_world, "\r\nLooks **good**\r\n")
    assert (again.status_code, again.content) == (201, first.content)
    assert again["Idempotent-Replayed"] == "true"
    assert stored(issue_world) == ["Looks **good**"]


def test_a_replay_after_an_edit_still_answers_the_first_bytes(issue_world: World, api_client: ApiClientFactory) -> None:
    client = api_client(issue_world, role="member", scope="write")
    first = post(client, issue_world, "Before")
    edit = client.patch_json(url(issue_world, f"/{body(first)['id']}"), {"body": "After"})
    assert edit.status_code == 200
    assert post(client, issue_world, "Before").content == first.content
    assert stored(issue_world) == ["After"]


def test_the_same_key_with_another_body_is_a_422_and_writes_nothing(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(issue_world, role="member", scope="write")
    assert post(client, issue_world, "One").status_code == 201
    other = post(client, issue_world, "Two")
    assert other.status_code == 422
    assert body(other)["code"] == "idempotency_key_reused"
    assert stored(issue_world) == ["One"]


@pytest.mark.parametrize(
    ("text", "key"),
    [("   ", "k"), ("x" * 10_001, "k"), ({"body": "x", "extra": 1}, "k"), ("AAA-as-a-string", "k")],
    ids=["blank", "too-long", "extra-field", "a-json-string"],
)
def test_bad_input_is_refused_and_writes_nothing(
    issue_world: World, api_client: ApiClientFactory, text: Any, key: str
) -> None:
    client = api_client(issue_world, role="member", scope="write")
    if text == "AAA-as-a-string":  # a JSON string, not an object (RESEARCH22 R§1's trap)
        response = client.post_json(url(issue_world), json.dumps("AAA"), headers={"Idempotency-Key": key})
    else:
        response = post(client, issue_world, text, key=key)
    assert response.status_code == 422
    assert stored(issue_world) == []


def test_a_post_without_an_idempotency_key_is_a_400(issue_world: World, api_client: ApiClientFactory) -> None:
    response = post(api_client(issue_world, role="member", scope="write"), issue_world, "Hi", key=None)
    assert response.status_code == 400
    assert stored(issue_world) == []


@pytest.mark.parametrize(("role", "scope"), [("viewer", "read"), ("member", "read")])
def test_a_viewer_or_a_read_token_cannot_comment(
    issue_world: World, api_client: ApiClientFactory, role: str, scope: str
) -> None:
    response = post(api_client(issue_world, role=role, scope=scope), issue_world, "Hi")
    assert response.status_code == 403
    assert body(response)["code"] == "forbidden"
    assert stored(issue_world) == []


def test_one_comment_with_its_etag_and_a_304(issue_world: World, api_client: ApiClientFactory) -> None:
    comment_id = add(issue_world, "member", "Hello")
    client = api_client(issue_world, role="viewer", scope="read")
    response = client.get(url(issue_world, f"/{comment_id}"))
    assert response.status_code == 200
    assert response["ETag"] == '"1"'
    assert body(response)["id"] == comment_id
    assert client.get(url(issue_world, f"/{comment_id}"), headers={"If-None-Match": '"1"'}).status_code == 304
    assert client.get(url(issue_world, "/20261122101530123-000000000000")).status_code == 404
    assert client.get(url(issue_world, "/not-an-id")).status_code == 404


def test_the_author_edits_under_if_match_and_a_stale_one_is_a_412_with_the_comment_now(
    issue_world: World, api_client: ApiClientFactory
) -> None:
    comment_id = add(issue_world, "member", "First")
    client = api_client(issue_world, role="member", scope="write")
    saved = client.patch_json(url(issue_world, f"/{comment_id}"), {"body": "Second"}, headers={"If-Match": '"1"'})
    assert saved.status_code == 200
    assert saved["ETag"] == '"2"'
    assert (body(saved)["body"], body(saved)["version"], body(saved)["edited"]) == ("Second", 2, True)
    stale = client.patch_json(url(issue_world, f"/{comment_id}"), {"body": "Third"}, headers={"If-Match": '"1"'})
    assert stale.status_code == 412
    assert stale["ETag"] == '"2"'
    assert body(stale)["current"]["body"] == "Second"
    assert stored(issue_world) == ["Second"]
    deleted = client.delete(url(issue_world, f"/{comment_id}"), headers={"If-Match": '"1"'})
    assert deleted.status_code == 412
    assert stored(issue_world) == ["Second"]
    assert client.delete(url(issue_world, f"/{comment_id}"), headers={"If-Match": '"2"'}).status_code == 204
    assert stored(issue_world) == []


def test_only_the_author_edits_or_deletes(issue_world: World, api_client: ApiClientFactory) -> None:
    comment_id = add(issue_world, "member", "Mine")
    owner = api_client(issue_world, role="owner", scope="write")
    assert owner.patch_json(url(issue_world, f"/{comment_id}"), {"body": "Theirs"}).status_code == 403
    assert owner.delete(url(issue_world, f"/{comment_id}")).status_code == 403
    assert stored(issue_world) == ["Mine"]
