"""Issues read by API: a 1,200-issue project paged at one DynamoDB request a page, the lists' filters and cursors,
one issue with its ETag (304, then 200 after a change), an issue's history; another team's URL is a 404."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from ddbmodels import issues as ddb_issues
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem, collection_key
from tests.conftest import MovingClock
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.models import Membership
from tracker.selectors.projects import project_access
from tracker.services import issues as issue_services

TOTAL = 1200


def body(response: Any) -> Any:
    return json.loads(response.content)


def numbers(response: Any) -> list[int]:
    return [row["number"] for row in body(response)["items"]]


def errors_of(problem: dict[str, Any]) -> list[dict[str, Any]]:
    """The fields a 422 names (tracker.api.problems' FieldErrors; the answer's format is tested there)."""
    return list(problem.get("errors") or problem.get("detail") or [])


def requests_of(response: Any) -> int:
    """DynamoDB requests the whole call made (CapacityMiddleware's meter of the request)."""
    return int(response.wsgi_request.ddb_capacity.requests)


def rcu_of(response: Any) -> float:
    return float(response.wsgi_request.ddb_capacity.rcu)


def issues_url(world: World, suffix: str = "") -> str:
    return f"/api/v1/teams/{world.slug}/projects/{world.project_key}/issues{suffix}"


def membership_of(world: World, role: str = "member") -> Membership:
    user = {"owner": world.owner, "member": world.member, "viewer": world.viewer}[role]
    return Membership.objects.select_related("tenant", "user").get(user=user, tenant=world.tenant)


def create(world: World, title: str = "Login button does nothing", **fields: Any) -> IssueItem:
    project = project_access(tenant=world.tenant, key=world.project_key)
    return issue_services.issue_create(membership=membership_of(world), project=project, title=title, **fields)


@pytest.fixture
def big(world: World) -> World:
    """WEB with 1,200 open issues, loaded in bulk as an import would; every tenth assigned to the member."""
    now = utcnow()
    ddb_issues.issues_put_many(
        IssueItem(
            pk=collection_key(world.slug, "WEB"),
            number=n,
            title=f"Routine task number {n}",
            status="open",
            priority="medium",
            assignee=world.member.username if n % 10 == 0 else None,
            reporter=world.owner.username,
            created_at=now - timedelta(minutes=TOTAL - n),
            updated_at=now - timedelta(minutes=TOTAL - n),
        )
        for n in range(1, TOTAL + 1)
    )
    return world


def test_a_1200_issue_projects_open_issues_page_by_page_at_one_request_a_page(
    big: World, api_client: ApiClientFactory
) -> None:
    client = api_client(big, role="viewer", scope="read")
    assert client.get(f"/api/v1/teams/{big.slug}/projects/WEB").status_code == 200  # the project, cached now
    seen: list[int] = []
    url: str | None = issues_url(big, "?state=open&limit=100")
    pages = 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        pages += 1
        assert requests_of(response) == 1, f"page {pages}: {requests_of(response)} DynamoDB requests"
        assert response["X-DynamoDB-Requests"] == "1"  # what the client is told, from the same meter
        assert rcu_of(response) <= 4.0
        page = body(response)
        assert len(page["items"]) == 100
        seen += numbers(response)
        links = response.get("Link", "")
        if page["next_cursor"]:
            assert 'rel="next"' in links
            assert links.startswith("<http://testserver/api/v1/")
            url = links.split(">", 1)[0].removeprefix("<")
        else:
            assert 'rel="next"' not in links
            url = None
    assert pages == 12
    assert seen == list(range(TOTAL, 0, -1))  # newest first, each once


def test_the_previous_page_is_the_page_before(big: World, api_client: ApiClientFactory) -> None:
    client = api_client(big)
    first = body(client.get(issues_url(big), {"limit": 50, "sort": "newest"}))
    second = body(client.get(issues_url(big), {"limit": 50, "sort": "newest", "cursor": first["next_cursor"]}))
    assert [row["number"] for row in second["items"]] == list(range(1150, 1100, -1))
    back = client.get(issues_url(big), {"limit": 50, "sort": "newest", "cursor": second["prev_cursor"]})
    assert numbers(back) == [row["number"] for row in first["items"]]


def test_a_page_shows_the_list_row_of_each_issue(world: World, api_client: ApiClientFactory) -> None:
    create(world, "Checkout fails", priority="high", assignee=world.member.username, labels=["bug", "ui"])
    response = api_client(world).get(issues_url(world))
    assert response.status_code == 200
    page = body(response)
    (row,) = page["items"]
    assert row["reference"] == "WEB-1"
    assert (row["title"], row["status"], row["priority"]) == ("Checkout fails", "open", "high")
    assert (row["assignee"], row["labels"], row["reporter"]) == (
        world.member.username,
        ["bug", "ui"],
        world.member.username,
    )
    assert "description" not in row
    assert (page["state"], page["sort"], page["next_cursor"], page["prev_cursor"]) == ("open", "newest", None, None)
    assert "Link" not in response


def test_the_filters_are_the_pages_and_override_the_query_box(world: World, api_client: ApiClientFactory) -> None:
    create(world, "Mine and a bug", assignee=world.member.username, labels=["bug"])
    create(world, "A bug of nobody", labels=["bug"])
    create(world, "Mine, no bug", assignee=world.member.username)
    client = api_client(world)
    assert numbers(client.get(issues_url(world), {"assignee": "me"})) == [3, 1]
    assert numbers(client.get(issues_url(world), {"label": "bug"})) == [2, 1]
    assert numbers(client.get(issues_url(world), {"q": "label:bug"})) == [2, 1]
    assert numbers(client.get(issues_url(world), {"q": "label:bug", "assignee": "me"})) == [1]
    assert numbers(client.get(issues_url(world), {"q": "is:closed"})) == []
    assert numbers(client.get(issues_url(world), {"q": "is:closed", "state": "open", "sort": "oldest"})) == [1, 2, 3]
    team = client.get(f"/api/v1/teams/{world.slug}/issues", {"assignee": "me", "sort": "stale"})
    assert numbers(team) == [1, 3]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"q": "is:nothing"}, "q"),
        ({"label": "no spaces allowed"}, "label"),
        ({"assignee": "two words"}, "assignee"),
        ({"state": "done"}, "state"),
        ({"sort": "random"}, "sort"),
        ({"limit": 101}, "limit"),
        ({"limit": 0}, "limit"),
        ({"milestone": "v9"}, "milestone"),
        ({"label": "bug", "sort": "newest"}, "sort"),  # a label's list has its own order
    ],
)
def test_a_filter_the_list_cannot_use_is_a_422_naming_it(
    world: World, api_client: ApiClientFactory, params: dict[str, Any], field: str
) -> None:
    response = api_client(world).get(issues_url(world), params)
    assert response.status_code == 422, response.content
    named = [error.get("field") or error.get("loc", [""])[-1] for error in errors_of(body(response))]
    assert named == [field], response.content


def test_the_team_wide_list_sorts_by_update_and_takes_no_milestone(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world)
    assert client.get(f"/api/v1/teams/{world.slug}/issues", {"sort": "newest"}).status_code == 422
    assert client.get(f"/api/v1/teams/{world.slug}/issues", {"milestone": "v1"}).status_code == 422


def test_a_cursor_tampered_with_of_another_list_or_expired_is_a_400(
    big: World, api_client: ApiClientFactory, moving_clock: MovingClock
) -> None:
    client = api_client(big)
    cursor = body(client.get(issues_url(big), {"limit": 10}))["next_cursor"]
    assert client.get(issues_url(big), {"limit": 10, "cursor": cursor}).status_code == 200
    for params in (
        {"cursor": cursor[:-3] + ("aaa" if not cursor.endswith("aaa") else "bbb")},  # tampered with
        {"cursor": cursor, "state": "closed"},  # another list's
        {"cursor": cursor, "assignee": "me"},
        {"cursor": "not-a-cursor"},
    ):
        response = client.get(issues_url(big), params)
        assert response.status_code == 400, params
    moving_clock(utcnow() + timedelta(days=2))
    expired = client.get(issues_url(big), {"limit": 10, "cursor": cursor})
    assert expired.status_code == 400
    assert "expired" in body(expired)["detail"]


def test_another_teams_urls_are_404_and_a_token_is_needed(
    world: World, other_world: World, api_client: ApiClientFactory
) -> None:
    create(other_world, "Theirs")
    client = api_client(world)
    for path in (
        f"/api/v1/teams/{other_world.slug}/projects/WEB/issues",
        f"/api/v1/teams/{other_world.slug}/issues",
        f"/api/v1/teams/{other_world.slug}/projects/WEB/issues/1",
        f"/api/v1/teams/{other_world.slug}/projects/WEB/issues/1/history",
        f"/api/v1/teams/{world.slug}/projects/NOPE/issues",
        f"/api/v1/teams/{world.slug}/projects/WEB/issues/1",  # WEB-1 is the other team's
    ):
        response = client.get(path)
        assert response.status_code == 404, path
    assert Client().get(issues_url(world)).status_code == 401


def test_one_issue_with_its_etag_answers_304_until_it_changes(world: World, api_client: ApiClientFactory) -> None:
    issue = create(world, "Checkout fails", description="On Safari only.")
    client = api_client(world, role="viewer", scope="read")
    first = client.get(issues_url(world, "/1"))
    assert first.status_code == 200
    whole = body(first)
    assert (whole["reference"], whole["description"], whole["version"]) == ("WEB-1", "On Safari only.", 1)
    etag = first["ETag"]
    assert etag == f'"{whole["version"]}"'
    again = client.get(issues_url(world, "/1"), headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    project = project_access(tenant=world.tenant, key="WEB")
    issue_services.issue_change_status(
        membership=membership_of(world), project=project, issue=issue, expected_version=1, to="in_progress"
    )
    changed = client.get(issues_url(world, "/1"), headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert body(changed)["status"] == "in_progress"
    assert changed["ETag"] != etag


def test_a_deleted_or_missing_issue_is_a_404(world: World, api_client: ApiClientFactory) -> None:
    issue = create(world)
    project = project_access(tenant=world.tenant, key="WEB")
    issue_services.issue_delete(
        membership=membership_of(world, "owner"), project=project, issue=issue, expected_version=1
    )
    client = api_client(world)
    assert client.get(issues_url(world, "/1")).status_code == 404
    assert client.get(issues_url(world, "/2")).status_code == 404
    assert client.get(issues_url(world, "/0")).status_code == 422


def test_an_issues_history_newest_first_in_pages(world: World, api_client: ApiClientFactory) -> None:
    issue = create(world)
    project = project_access(tenant=world.tenant, key="WEB")
    for version, to in enumerate(("in_progress", "resolved", "open"), start=1):
        issue = issue_services.issue_change_status(
            membership=membership_of(world), project=project, issue=issue, expected_version=version, to=to
        )
    client = api_client(world)
    first = client.get(issues_url(world, "/1/history"), {"limit": 2})
    assert first.status_code == 200
    page = body(first)
    assert [line["text"] for line in page["items"]] == [
        "changed the status from Resolved to Open",
        "changed the status from In progress to Resolved",
    ]
    assert page["items"][0]["actor"] == world.member.username
    assert 'rel="next"' in first["Link"]
    rest = body(client.get(issues_url(world, "/1/history"), {"limit": 2, "cursor": page["next_cursor"]}))
    assert [line["text"] for line in rest["items"]] == [
        "changed the status from Open to In progress",
        "created the issue",
    ]
    assert (rest["next_cursor"], rest["archived"]) == (None, False)


def test_the_openapi_document_names_the_etag_and_link_headers(client: Client) -> None:
    paths = body(client.get("/api/v1/openapi.json"))["paths"]
    one = paths["/api/v1/teams/{team}/projects/{key}/issues/{number}"]["get"]["responses"]
    assert "ETag" in one["200"]["headers"]
    assert "ETag" in one["304"]["headers"]
    for path in ("/api/v1/teams/{team}/projects/{key}/issues", "/api/v1/teams/{team}/issues"):
        assert "Link" in paths[path]["get"]["responses"]["200"]["headers"]
    assert "ETag" in paths["/api/v1/teams/{team}/projects/{key}"]["get"]["responses"]["200"]["headers"]
