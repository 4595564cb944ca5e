"""The leaderboard end to end: points from the status page, the ranking, its cache, its tenant walls."""

from __future__ import annotations

import logging
import re

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client

from ddbmodels import jobs as ddb_jobs
from ddbmodels import scores as ddb_scores
from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, flash, load, new_issue, text, unchanged, version_of
from tests.tracker.inbox_helpers import without_header
from tracker.selectors.leaderboard import leaderboard_cache_key
from tracker.views.leaderboard import BAD_TOP

ROW = re.compile(
    r'<td data-label="Place" class="num">(\d+)</td>\s*'
    r'<td data-label="Member" class="text">(?:<strong>)?([^<]+?)(?:</strong> \(you\))?</td>\s*'
    r'<td data-label="Points" class="num">(-?\d+)</td>'
)


def board(response: object) -> list[tuple[int, str, int]]:
    """(place, member, points) rows of a leaderboard page, in display order."""
    return [(int(rank), name, int(points)) for rank, name, points in ROW.findall(text(response))]  # type: ignore[arg-type]


def standing(response: object) -> str:
    match = re.search(r'<p class="current" id="standing">(.*?)</p>', text(response), re.S)  # type: ignore[arg-type]
    assert match, "no standing on the page"
    return " ".join(re.sub(r"<[^>]+>", "", match.group(1)).split())


def points(world: World, username: str) -> int:
    item = ddb_scores.score_get(tenant=world.slug, username=username)
    return int(item.score) if item is not None else 0


def move(client: Client, world: World, number: int, to: str) -> None:
    response = client.post(world.project_url(f"{number}/status/"), {"to": to, "version": version_of(world, number)})
    assert response.status_code == 302
    assert load(world, number).status == to  # type: ignore[union-attr]


def seed(world: World, scores: dict[str, int]) -> None:
    for username, score in scores.items():
        ddb_scores.score_add(tenant=world.slug, username=username, points=score)


# ------------------------------------------------------------------------------ points from issues


def test_resolving_an_assigned_issue_on_the_status_page_awards_its_assignee(world: World) -> None:
    new_issue(world, assignee=world.member.username, priority="urgent")
    new_issue(world, assignee=world.member.username, priority="low")
    client = world.client_for(world.owner)
    move(client, world, 1, "resolved")
    assert points(world, world.member.username) == 5
    move(client, world, 2, "resolved")
    assert points(world, world.member.username) == 6
    assert board(client.get(world.url("leaderboard/"))) == [(1, world.member.username, 6)]


def test_reopening_a_resolved_issue_takes_its_points_back(world: World) -> None:
    new_issue(world, assignee=world.member.username, priority="high")
    client = world.client_for(world.member)
    move(client, world, 1, "resolved")
    move(client, world, 1, "closed")  # closing keeps them
    assert points(world, world.member.username) == 3
    move(client, world, 1, "open")
    assert points(world, world.member.username) == 0
    assert board(client.get(world.url("leaderboard/"))) == []  # nobody with points left


def test_deleting_a_resolved_issue_takes_its_points_back(world: World) -> None:
    new_issue(world, assignee=world.member.username, priority="medium")
    client = world.client_for(world.owner)
    move(client, world, 1, "resolved")
    assert points(world, world.member.username) == 2
    response = client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})
    assert response.status_code == 302
    assert points(world, world.member.username) == 0


def test_resolving_an_unassigned_issue_or_moving_it_elsewhere_awards_nobody(world: World) -> None:
    new_issue(world)
    new_issue(world, assignee=world.member.username)
    client = world.client_for(world.member)
    move(client, world, 1, "resolved")
    move(client, world, 2, "in_progress")
    move(client, world, 2, "closed")
    assert ddb_scores.top_scores(tenant=world.slug, k=10) == []


def test_a_failed_award_never_fails_the_status_change_and_the_repair_command_puts_it_right(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    new_issue(world, assignee=world.member.username, priority="urgent")

    def broken(*_: object, **__: object) -> None:
        raise ConnectionError("DynamoDB is unreachable")

    monkeypatch.setattr(ddb_scores, "award_issue", broken)
    client = world.client_for(world.member)
    with caplog.at_level(logging.WARNING, logger="tracker.services.leaderboard"):
        response = client.post(world.project_url("1/status/"), {"to": "resolved", "version": version_of(world, 1)})
    assert response.status_code == 302
    assert flash(response) == ["WEB-1 is now Resolved."]
    assert load(world, 1).status == "resolved"  # type: ignore[union-attr]
    assert points(world, world.member.username) == 0
    assert f"leaderboard_repair {world.slug}" in caplog.text
    monkeypatch.undo()
    call_command("leaderboard_repair", world.slug)
    assert points(world, world.member.username) == 5
    call_command("leaderboard_repair", world.slug, "--project", "WEB")  # again: nothing moves twice
    assert points(world, world.member.username) == 5
    # the repair job's item is the team's: offboarding finds it (and deletes it) with the team
    assert f"leaderboard_repair:{world.slug}" in ddb_jobs.tenant_job_names(world.slug)


def test_the_repair_command_refuses_an_unknown_tenant_or_project_key(world: World) -> None:
    with pytest.raises(CommandError, match="no tenant"):
        call_command("leaderboard_repair", "no-such-tenant")
    with pytest.raises(CommandError, match="invalid project key"):
        call_command("leaderboard_repair", world.slug, "--project", "web")


# ------------------------------------------------------------------------------ the page


def test_the_page_ranks_members_by_points_then_name_and_shows_your_own_place(world: World) -> None:
    seed(world, {"zed": 7, world.member.username: 9, "amy": 7, "bo": 2})
    response = world.client_for(world.member).get(world.url("leaderboard/"))
    assert response.status_code == 200
    assert board(response) == [(1, world.member.username, 9), (2, "amy", 7), (2, "zed", 7), (4, "bo", 2)]
    assert f"<strong>{world.member.username}</strong> (you)" in text(response)
    assert standing(response) == "You have 9 points: place #1."


def test_the_top_50_switch_shows_fifty_and_a_member_outside_the_top_sees_their_place(world: World) -> None:
    seed(world, {f"dev{i:02d}": 100 - i for i in range(60)} | {world.member.username: 45})
    client = world.client_for(world.member)
    top10 = client.get(world.url("leaderboard/"))
    assert [row[1] for row in board(top10)] == [f"dev{i:02d}" for i in range(10)]
    assert 'href="?top=50">Show top 50</a>' in text(top10)
    assert standing(top10) == "You have 45 points: place #56, outside the top 10."
    top50 = client.get(world.url("leaderboard/?top=50"))
    assert len(board(top50)) == 50
    assert board(top50)[-1] == (50, "dev49", 51)
    assert 'href="?top=10">Show top 10</a>' in text(top50)
    assert standing(world.client_for(world.viewer).get(world.url("leaderboard/"))) == (
        "You have no points yet: resolve an issue assigned to you to get on the board."
    )


@pytest.mark.parametrize("top", ["abc", "1000", "0", "-10", "10.5", "5"])
def test_an_invalid_top_is_a_400_that_reads_and_writes_nothing(world: World, top: str) -> None:
    client = world.client_for(world.member)
    with unchanged(world), capacity.measure() as meter:
        response = client.get(world.url("leaderboard/"), {"top": top})
    assert response.status_code == 400
    assert BAD_TOP.replace("?", "") in text(response).replace("?", "")
    assert meter.requests == 0


def test_the_page_answers_only_get(world: World) -> None:
    assert world.client_for(world.member).post(world.url("leaderboard/")).status_code == 405


def test_a_cached_top_costs_no_request_and_a_score_change_reads_dynamodb_again(world: World) -> None:
    seed(world, {world.member.username: 4, "amy": 3})
    new_issue(world, assignee="amy", priority="high")
    client = world.client_for(world.member)
    with capacity.measure() as first:
        assert board(client.get(world.url("leaderboard/")))[0] == (1, world.member.username, 4)
    with capacity.measure() as cached:
        assert board(client.get(world.url("leaderboard/")))[0] == (1, world.member.username, 4)
    assert without_header(first) == {"Query": 4}  # one per shard (LEADERBOARD_SHARDS = 4)
    assert cached.requests == 0
    assert cache.get(leaderboard_cache_key(world.slug, 10)) is not None
    move(client, world, 1, "resolved")  # amy: 3 + 3 = 6, ahead now
    assert cache.get(leaderboard_cache_key(world.slug, 10)) is None
    with capacity.measure() as after:
        rows = board(client.get(world.url("leaderboard/")))
    assert rows == [(1, "amy", 6), (2, world.member.username, 4)]
    assert after.by_operation == {"Query": 4}


# ------------------------------------------------------------------------------ tenants


def test_another_tenants_leaderboard_is_a_404_like_a_missing_one(world: World, other_world: World) -> None:
    seed(world, {"secret-star": 99})
    outsider = other_world.client_for(other_world.owner)
    for url in (world.url("leaderboard/"), "/t/no-such-tenant/leaderboard/"):
        response = outsider.get(url)
        assert response.status_code == 404
        assert NOT_FOUND_TEXT in text(response)
    assert "secret-star" not in text(outsider.get(other_world.url("leaderboard/")))
    anonymous = Client().get(world.url("leaderboard/"))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")
