"""Project metadata is served from Redis after the first read, and every project write invalidates it."""

from __future__ import annotations

import json
import pickle

from django.core.cache import cache
from django.test.utils import override_settings

from ddbmodels import issues as ddb_projects
from ddbmodels import scores as ddb_scores
from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue, references, text
from tests.tracker.inbox_helpers import without_header
from tracker.selectors.leaderboard import leaderboard_cache_key
from tracker.selectors.projects import project_cache_key, project_list, project_list_cache_key


def test_the_project_list_page_is_served_from_redis_after_the_first_view(world: World) -> None:
    client = world.client_for(world.member)
    assert cache.get(project_list_cache_key(world.slug)) is None
    with capacity.measure() as first:
        one = client.get(world.url())
    with capacity.measure() as second:
        two = client.get(world.url())
    assert one.status_code == two.status_code == 200
    assert ">WEB</strong>" in text(one)
    assert ">WEB</strong>" in text(two)
    assert without_header(first) == {"Query": 1, "BatchGetItem": 1}
    assert second.requests < first.requests
    assert second.requests == 0
    assert cache.get(project_list_cache_key(world.slug)) is not None


def test_the_cached_list_really_is_what_is_shown(world: World) -> None:
    """A project written behind the service's back stays invisible until the entry is dropped."""
    client = world.client_for(world.member)
    client.get(world.url())
    ddb_projects.project_create(tenant=world.slug, key="BEHIND", name="Behind", created_by="x")
    assert "BEHIND" not in text(client.get(world.url()))
    cache.delete(project_list_cache_key(world.slug))
    assert "BEHIND" in text(client.get(world.url()))


def test_project_metadata_for_issue_pages_is_read_from_dynamodb_once(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    with capacity.measure() as first:
        assert client.get(world.project_url()).status_code == 200
    with capacity.measure() as second:
        assert client.get(world.project_url()).status_code == 200
    assert without_header(first)["GetItem"] == 1  # the project's static item
    assert cache.get(project_cache_key(world.slug, "WEB")) is not None
    assert second.by_operation["GetItem"] == 0
    assert second.by_operation["Query"] == 1  # the issues: never cached (the labels' colours are, since the first)
    assert first.by_pattern["issues.list"].requests == second.by_pattern["issues.list"].requests == 1
    assert second.requests < first.requests
    with capacity.measure() as detail:
        restored = client.get(world.project_url("1/"))
    assert restored.status_code == 200
    assert ">WEB</a> › WEB-1</nav>" in text(restored)  # the project restored from Redis renders
    # The issue only, plus one Query each for its attachments, its comments and its watchers (the Watch
    # button) and one per events table its history reads (only this period's: the issue is new). The
    # project's milestones (the page's milestone select) were cached by the list's bulk bar, which read
    # them once on the first visit.
    assert first.by_pattern["milestones.list"].requests == 1
    assert detail.by_operation == {"GetItem": 1, "Query": 4}
    assert "milestones.list" not in detail.by_pattern


def test_creating_a_project_shows_it_in_the_list_at_once(world: World) -> None:
    client = world.client_for(world.owner)
    assert "API" not in text(client.get(world.url()))  # now cached
    response = client.post(world.url("projects/new/"), {"key": "API", "name": "Public API"})
    assert response.status_code == 302
    with capacity.measure() as meter:
        page = text(client.get(world.url()))
    assert ">API</strong>" in page
    assert ">WEB</strong>" in page
    assert meter.by_operation["Query"] == 1  # the list was read again, not served stale


def test_a_project_visited_before_it_existed_is_reachable_once_created(world: World) -> None:
    client = world.client_for(world.owner)
    with capacity.measure() as first:
        assert client.get(world.url("p/LATER/")).status_code == 404
    with capacity.measure() as second:
        assert client.get(world.url("p/LATER/")).status_code == 404
    assert first.by_operation["GetItem"] == 1
    assert second.requests == 0  # "no such project" is cached as well
    assert client.post(world.url("projects/new/"), {"key": "LATER", "name": "Later"}).status_code == 302
    assert client.get(world.url("p/LATER/")).status_code == 200


def test_one_tenants_cached_projects_never_show_in_another(world: World, other_world: World) -> None:
    ddb_projects.project_create(tenant=other_world.slug, key="OTHER", name="Other only", created_by="x")
    mine = world.client_for(world.owner)
    theirs = other_world.client_for(other_world.owner)
    assert "OTHER" not in text(mine.get(world.url()))
    assert "OTHER" in text(theirs.get(other_world.url()))
    assert "OTHER" not in text(mine.get(world.url()))
    with capacity.measure() as meter:  # both lists are cached now, each under its own tenant's key
        assert [p.project_key for p in project_list(tenant=world.tenant)] == ["WEB"]
        assert [p.project_key for p in project_list(tenant=other_world.tenant)] == ["OTHER", "WEB"]
    assert meter.requests == 0


def test_pages_still_work_when_redis_is_down(world: World) -> None:
    new_issue(world, "Still here")
    dead = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}
    with override_settings(CACHES=dead):
        client = world.client_for(world.member)
        assert ">WEB</strong>" in text(client.get(world.url()))
        assert references(client.get(world.project_url())) == [1]
        response = client.post(world.project_url("new/"), {"title": "Written without Redis", "priority": "low"})
        assert response.status_code == 302
    assert references(world.client_for(world.member).get(world.project_url())) == [2, 1]


# ------------------------------------------------------------------------------ JSON, never pickle

RAN: list[str] = []


def _ran() -> str:
    """What a pickled payload would call if the cache unpickled it."""
    RAN.append("code ran")
    return "unpickled"


class _Payload:
    def __reduce__(self) -> tuple[object, tuple[()]]:
        return (_ran, ())


def _raw(key: str) -> bytes | None:
    """The bytes Redis holds for the cache key ``key`` (past Django's key prefix and version)."""
    return cache._cache.get_client(write=True).get(cache.make_key(key))  # type: ignore[attr-defined]


def test_everything_the_pages_cache_is_stored_as_json(world: World) -> None:
    new_issue(world)
    ddb_scores.score_add(tenant=world.slug, username=world.member.username, points=3)
    client = world.client_for(world.member)
    for url in (world.url(), world.project_url(), world.project_url("1/"), world.url("leaderboard/")):
        assert client.get(url).status_code == 200
    keys = [
        project_list_cache_key(world.slug),
        project_cache_key(world.slug, "WEB"),
        leaderboard_cache_key(world.slug, 10),
    ]
    for key in keys:
        raw = _raw(key)
        assert raw is not None, key
        assert not raw.startswith(b"\x80"), key  # a pickle's first byte (protocol 2 and later)
        json.loads(raw)  # raises if it is not JSON
    # And what was stored reads back as the pages show it (the second views come from Redis).
    assert ">WEB</strong>" in text(client.get(world.url()))
    assert world.member.username in text(client.get(world.url("leaderboard/")))


def test_a_pickle_written_straight_into_redis_is_a_miss_and_never_runs(world: World) -> None:
    RAN.clear()
    key = project_list_cache_key(world.slug)
    cache._cache.get_client(write=True).set(cache.make_key(key), pickle.dumps(_Payload()))  # type: ignore[attr-defined]
    assert cache.get(key) is None  # a miss, not the unpickled value
    assert cache.get_many([key]) == {}
    response = world.client_for(world.member).get(world.url())
    assert response.status_code == 200
    assert ">WEB</strong>" in text(response)  # read from DynamoDB instead
    assert RAN == []
    json.loads(_raw(key) or b"")  # and the page's read put JSON back in its place
