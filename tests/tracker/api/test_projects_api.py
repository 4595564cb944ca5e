"""The team's projects by API: the home page's list and one project with its ETag; another team's is a 404."""

from __future__ import annotations

import json
from typing import Any

from ddbmodels import issues as ddb_issues
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker.services.projects import project_counts_refresh


def body(response: Any) -> Any:
    return json.loads(response.content)


def test_the_teams_projects_by_key_with_their_issue_counts(world: World, api_client: ApiClientFactory) -> None:
    ddb_issues.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    response = api_client(world, role="viewer", scope="read").get(f"/api/v1/teams/{world.slug}/projects")
    assert response.status_code == 200
    items = body(response)["items"]
    assert [(p["key"], p["name"]) for p in items] == [("API", "Public API"), ("WEB", "Website")]
    assert items[1]["issues"] == {"open": 0, "in_progress": 0, "resolved": 0, "closed": 0}
    assert (items[1]["created_by"], items[1]["importing"], items[1]["description"]) == (world.owner.username, False, "")


def test_one_project_answers_304_to_its_etag_and_200_once_it_changes(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world)
    url = f"/api/v1/teams/{world.slug}/projects/WEB"
    first = client.get(url)
    assert first.status_code == 200
    assert body(first)["key"] == "WEB"
    etag = first["ETag"]
    assert etag[0] == etag[-1] == '"'
    unchanged = client.get(url, headers={"If-None-Match": etag})
    assert (unchanged.status_code, unchanged.content, unchanged["ETag"]) == (304, b"", etag)
    assert client.get(url, headers={"If-None-Match": f"W/{etag}"}).status_code == 304  # weak comparison
    assert client.get(url, headers={"If-None-Match": '"999"'}).status_code == 200
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="New", reporter=world.member.username)
    project_counts_refresh(tenant=world.slug, key="WEB")  # the counts job: the counts change, the version does not
    changed = client.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert body(changed)["issues"]["open"] == 1
    assert changed["ETag"] != etag


def test_another_teams_projects_are_404(world: World, other_world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world)
    for path in (f"/api/v1/teams/{other_world.slug}/projects", f"/api/v1/teams/{other_world.slug}/projects/WEB"):
        response = client.get(path)
        assert response.status_code == 404
    assert client.get(f"/api/v1/teams/{world.slug}/projects/NOPE").status_code == 404
    assert client.get(f"/api/v1/teams/{world.slug}/projects/web").status_code == 404  # keys are upper case
