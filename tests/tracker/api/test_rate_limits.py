"""Rate limits: per token (API_RATE_LIMIT) and per address without one (API_RATE_LIMIT_ANONYMOUS), in Redis.

Every answer carries the draft's ``RateLimit-Policy``/``RateLimit`` and ``X-RateLimit-*``; a 429 adds
``Retry-After`` (the seconds to the window's reset) and runs nothing; a 304 is not counted; 401s count against the
address; with Redis down the API keeps serving and each process limits on its own. The operations are those of
tests/tracker/api/edges_urls.py.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.test.utils import override_settings

from ddbmodels.core.keys import utcnow
from tests.tracker.api.conftest import ApiClientFactory
from tests.tracker.conftest import World
from tracker import optional_redis
from tracker.api import ratelimit

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.tracker.api.edges_urls")]


@pytest.fixture(autouse=True)
def fresh_windows() -> Iterator[None]:
    """No window left by another test (token ids and the test client's address repeat between tests)."""

    def clear() -> None:
        client = optional_redis.client(settings.REDIS_URL)
        keys = list(client.scan_iter(f"{ratelimit.KEY_PREFIX}*"))
        if keys:
            client.delete(*keys)
        ratelimit._memory_limiter.storage.reset()  # type: ignore[attr-defined]

    clear()
    yield
    clear()
    optional_redis.resume()


def _project(world: World) -> str:
    return f"/api/edges/teams/{world.slug}/projects/WEB"


def _headers(response: Any) -> tuple[str, str, str]:
    return (response["X-RateLimit-Limit"], response["X-RateLimit-Remaining"], response["RateLimit"])


@override_settings(API_RATE_LIMIT="3/hour")
def test_a_token_over_its_limit_gets_a_429_with_every_header_and_nothing_runs(
    world: World, api_client: ApiClientFactory
) -> None:
    client = api_client(world)
    answers = [client.get(_project(world)) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0"]
    first = answers[0]
    assert first["RateLimit-Policy"] == '"default";q=3;w=3600'
    assert first["X-RateLimit-Limit"] == "3"
    reset_at = int(first["X-RateLimit-Reset"])
    assert 3500 <= reset_at - utcnow().timestamp() <= 3601  # an epoch second: rounded up
    assert first["RateLimit"].startswith('"default";r=2;t=')
    assert 3590 <= int(first["RateLimit"].rsplit("=", 1)[1]) <= 3600  # never more than the window
    assert not first.has_header("Retry-After")

    refused = client.get(_project(world))
    assert refused.status_code == 429
    body = json.loads(refused.content)
    assert (body["code"], body["type"]) == (
        "rate_limited",
        "https://iana.org/assignments/http-problem-types#quota-exceeded",
    )
    assert refused["Content-Type"] == "application/problem+json"
    retry_after = int(refused["Retry-After"])
    assert retry_after <= 3600
    assert retry_after >= reset_at - utcnow().timestamp() - 1  # at least until the window resets
    assert retry_after > 3500
    assert refused["X-RateLimit-Remaining"] == "0"
    assert refused["RateLimit"] == f'"default";r=0;t={retry_after}'
    assert refused["X-DynamoDB-Requests"] == "0"  # the operation did not run


@override_settings(API_RATE_LIMIT="3/hour")
def test_tokens_have_windows_of_their_own(world: World, api_client: ApiClientFactory) -> None:
    one, other = api_client(world), api_client(world)
    for _ in range(3):
        one.get(_project(world))
    assert one.get(_project(world)).status_code == 429
    assert _headers(other.get(_project(world)))[:2] == ("3", "2")


@override_settings(API_RATE_LIMIT="2/hour")
def test_a_304_is_not_counted(world: World, api_client: ApiClientFactory) -> None:
    client = api_client(world)
    first = client.get(_project(world))
    etag = first["ETag"]
    assert first["X-RateLimit-Remaining"] == "1"
    for _ in range(5):
        unchanged = client.get(_project(world), headers={"If-None-Match": etag})
        assert unchanged.status_code == 304
        assert unchanged["X-RateLimit-Remaining"] == "1"
    changed = client.get(_project(world), headers={"If-None-Match": '"elsewhere"'})
    assert (changed.status_code, changed["X-RateLimit-Remaining"]) == (200, "0")
    assert client.get(_project(world), headers={"If-None-Match": etag}).status_code == 429


@override_settings(API_RATE_LIMIT="3/hour")
def test_the_seconds_to_the_reset_never_exceed_the_window() -> None:
    """A window just begun said ``t=3601``: its reset (epoch seconds, rounded up) less now, rounded up again."""
    for n in range(5):
        window = ratelimit.count("token", f"new-{n}", anonymous=False)
        assert window.reset_in() <= 3600
        assert window.headers()["RateLimit"] == f'"default";r=2;t={window.reset_in()}'


@override_settings(API_RATE_LIMIT="2/hour")
def test_conditional_calls_at_the_limit_never_overshoot_it() -> None:
    """R22-11: calls with If-None-Match were tested before and counted after, so calls running at once at
    ``remaining=1`` all passed and were all counted. Each is now counted when it comes (one atomic INCR), and a 304
    gives its count back: the second of two at once is refused, and the window holds its limit."""
    factory = RequestFactory()
    token_id = 424242

    def call() -> Any:
        request = factory.get("/api/v1/x", HTTP_IF_NONE_MATCH='"3"')
        request.auth = SimpleNamespace(token_id=token_id)
        return request

    ratelimit.check(call(), token_id)  # one call (not a 304): remaining 1
    first, second = call(), call()
    allowed = [ratelimit.check(first, token_id).allowed, ratelimit.check(second, token_id).allowed]
    assert allowed == [True, False]
    answer = HttpResponse(status=200)
    ratelimit.after(first, answer)
    assert answer["X-RateLimit-Remaining"] == "0"
    stands = ratelimit.count(*ratelimit.token_identity(token_id), anonymous=False, hit=False)
    assert stands.remaining == 0
    assert not stands.allowed


@override_settings(API_RATE_LIMIT="2/hour")
def test_a_304_gives_its_count_back() -> None:
    factory = RequestFactory()
    request = factory.get("/api/v1/x", HTTP_IF_NONE_MATCH='"3"')
    request.auth = SimpleNamespace(token_id=434343)
    assert ratelimit.check(request, 434343).remaining == 1
    answer = HttpResponse(status=304)
    ratelimit.after(request, answer)
    assert answer["X-RateLimit-Remaining"] == "2"
    assert ratelimit.count(*ratelimit.token_identity(434343), anonymous=False, hit=False).remaining == 2


@override_settings(API_RATE_LIMIT_ANONYMOUS="2/hour")
def test_calls_without_a_valid_token_count_against_their_address(world: World, api_client: ApiClientFactory) -> None:
    stranger = Client(headers={"Authorization": "Bearer trk_000000000000000000000000000000000000"})
    assert [stranger.get(_project(world)).status_code for _ in range(2)] == [401, 401]
    refused = stranger.get(_project(world))
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 3500
    nobody = Client()
    assert nobody.get("/api/edges/public").status_code == 429  # the same address, no token at all
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    answer = elsewhere.get("/api/edges/public")
    assert (answer.status_code, answer["X-RateLimit-Remaining"]) == (200, "1")
    assert api_client(world).get(_project(world)).status_code == 200  # a valid token has its own window


@pytest.fixture
def redis_down() -> Iterator[None]:
    """REDIS_URL pointing at a port where nothing listens (Redis stopped)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    caches = {"default": {**settings.CACHES["default"], "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    with override_settings(REDIS_URL=f"redis://127.0.0.1:{port}/0", CACHES=caches):
        optional_redis.resume()
        yield


@override_settings(API_RATE_LIMIT="3/hour")
def test_with_redis_down_the_api_serves_and_limits_per_process(
    world: World, api_client: ApiClientFactory, redis_down: None
) -> None:
    client = api_client(world)
    answers = [client.get(_project(world)) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert optional_redis.paused()
