"""The Capacity page's "API calls by token": every API call's DynamoDB capacity under its token, and as api:<name>.

A call's meter goes to the ``page`` figures as ``api:<operation>`` (an operation is named by its function, as a page
may be) and to the ``token`` figures as ``<team>#<username>#<hint>``; offboarding a team removes its tokens' rows.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker import capacity_stats
from tracker.services import team_leftovers
from tracker.services.team_leftovers import redis_places

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.tracker.api.edges_urls")]


@pytest.fixture(autouse=True)
def _fresh_figures() -> None:
    client = capacity_stats.redis_client()
    for key in client.scan_iter(f"{capacity_stats.KEY_PREFIX}*"):
        client.delete(key)


def _label(world: World, client: object) -> str:
    return f"{world.slug}#{world.member.username}#{client.token.hint}"  # type: ignore[attr-defined]


def test_a_tokens_calls_are_counted_under_the_token_and_the_operation(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world)
    for _ in range(2):
        assert client.get(f"/api/edges/teams/{world.slug}/projects/WEB").status_code == 200
    tokens = {row.label: row for row in capacity_stats.totals("token")}
    row = tokens[_label(world, client)]
    assert (row.count, row.requests, row.rcu, row.wcu) == (2, 2, 1.0, 0.0)
    pages = {row.label: row for row in capacity_stats.totals("page")}
    assert pages["api:project_read"].count == 2
    assert "project_read" not in pages  # never mixed with a page of the same name


def test_the_capacity_page_shows_api_calls_by_token(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world)
    client.get(f"/api/edges/teams/{world.slug}/projects/WEB")
    staff = Client()
    staff.force_login(User.objects.create_superuser("staff-capacity", password="pw-for-tests"))
    page = staff.get("/admin/ddb/capacity/").content.decode()
    section = page.split('id="ddb-capacity-tokens"', 1)[1]
    assert "API calls by token" in section
    assert _label(world, client) in section


def test_offboarding_removes_the_teams_token_rows_only(
    world: World, other_world: World, api_client: ApiClientFactory
) -> None:
    mine, theirs = api_client(world), api_client(other_world)
    mine.get(f"/api/edges/teams/{world.slug}/projects/WEB")
    theirs.get(f"/api/edges/teams/{other_world.slug}/projects/WEB")
    team = team_leftovers.Team(world.slug)
    assert redis_places.capacity_entries(team, apply=True) >= 1
    left = {row.label for row in capacity_stats.totals("token")}
    assert left == {f"{other_world.slug}#{other_world.member.username}#{theirs.token.hint}"}
    assert "api:project_read" in {row.label for row in capacity_stats.totals("page")}  # not a team's
