"""Degrade, never hang: Redis frozen or DynamoDB throttled, stalled or unreachable still gives a page in seconds.

A frozen service is a listening socket that never answers (as a SIGSTOPped Redis or a stalled
DynamoDB: the connection is accepted by the kernel, the answer never comes).
"""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Callable, Iterator

import pytest
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.compat import HTTPHeaders
from django.conf import settings
from django.test.utils import override_settings

import ddbmodels
from ddbmodels.core import connection
from devtools import services
from tests.dynamodb_faults import Refusal
from tests.tracker.conftest import World
from tests.tracker.helpers import staff_client
from tracker import optional_redis

REDIS_FROZEN_PAGE_SECONDS = 3.0
THROTTLED_PAGE_SECONDS = 10.0
# A stalled DynamoDB: every attempt waits out its read timeout, with botocore's jittered backoff
# between attempts (at most 1 s, then 2 s), plus the page's own work: about 7 s, at most ~10.5 s.
STALLED_PAGE_SECONDS = connection.DEFAULT_MAX_ATTEMPTS * connection.DEFAULT_READ_TIMEOUT + 1 + 2 + 1.5


@pytest.fixture
def frozen_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections (into the kernel's backlog) and never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture
def redis_frozen(frozen_port: int) -> Iterator[None]:
    """The cache, the capacity figures, job locks and Celery's broker all pointed at a frozen Redis."""
    from tracker.celery import app

    url = f"redis://127.0.0.1:{frozen_port}/0"
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    # Celery keeps its broker connections in a pool (and a producer pool over it): set both aside
    # so publishing opens new connections to the frozen Redis, and put them back afterwards.
    previous = (app.conf.broker_url, app._pool, app.amqp._producer_pool)
    app._pool = app.amqp._producer_pool = None
    with override_settings(CACHES=caches, REDIS_URL=url, CELERY_BROKER_URL=url):
        app.conf.broker_url = url
        optional_redis.resume()
        yield
    frozen_pool = app._pool
    app.conf.broker_url, app._pool, app.amqp._producer_pool = previous
    if frozen_pool is not None:
        frozen_pool.force_close_all()
    optional_redis.resume()


def timed(get: Callable[[], object]) -> tuple[float, object]:
    started = time.monotonic()
    response = get()
    return time.monotonic() - started, response


def test_with_redis_frozen_every_page_answers_within_three_seconds(world: World, redis_frozen: None) -> None:
    client = world.client_for(world.member)
    for url in (world.url(), world.project_url(), world.url("leaderboard/"), world.url("orders/"), "/admin/"):
        seconds, response = timed(lambda url=url: client.get(url))
        assert response.status_code in (200, 302), url  # type: ignore[attr-defined]
        assert seconds <= REDIS_FROZEN_PAGE_SECONDS, (url, seconds)


@pytest.fixture
def own_redis() -> Iterator[services.Service]:
    """A Redis of this test's own (so stopping it stops nobody else), as cache and for the figures."""
    server = services.start("redis")
    url = f"{server.url}/0"
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    try:
        with override_settings(CACHES=caches, REDIS_URL=url):
            optional_redis.resume()
            yield server
    finally:
        server.process.send_signal(signal.SIGCONT)
        server.stop()
        optional_redis.resume()


def test_with_redis_stopped_by_sigstop_pages_answer_within_three_seconds(
    world: World, own_redis: services.Service
) -> None:
    """The real thing: pages warm the cache and its connections, then Redis is frozen mid-use."""
    client = world.client_for(world.member)
    urls = (world.url(), world.project_url(), world.url("leaderboard/"))
    for url in urls:
        assert client.get(url).status_code == 200
    own_redis.process.send_signal(signal.SIGSTOP)
    for url in (*urls, *urls):
        seconds, response = timed(lambda url=url: client.get(url))
        assert response.status_code == 200, url  # type: ignore[attr-defined]
        assert seconds <= REDIS_FROZEN_PAGE_SECONDS, (url, seconds)


def test_with_redis_frozen_the_staff_pages_answer_and_starting_a_job_says_redis_is_down(redis_frozen: None) -> None:
    client = staff_client("operator", may_change=True)
    for url in ("/admin/ddb/jobs/", "/admin/ddb/capacity/"):
        seconds, response = timed(lambda url=url: client.get(url))
        assert response.status_code == 200, url  # type: ignore[attr-defined]
        assert seconds <= REDIS_FROZEN_PAGE_SECONDS, (url, seconds)
    seconds, response = timed(lambda: client.post("/admin/ddb/jobs/", {"job": "archive", "archive-dry_run": "on"}))
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert response["Retry-After"]  # type: ignore[index]
    assert "The job queue (Redis) is not answering" in response.content.decode()  # type: ignore[attr-defined]
    assert seconds <= THROTTLED_PAGE_SECONDS, seconds


@pytest.mark.parametrize(
    "code", ["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]
)
def test_dynamodb_throttling_is_a_503_page_in_the_sites_layout_with_retry_after(
    world: World, dynamodb_refuses: Callable[..., Refusal], code: str
) -> None:
    client = world.client_for(world.member)
    dynamodb_refuses("Query", code=code, status=400)
    seconds, response = timed(lambda: client.get(world.project_url()))
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert response["Retry-After"] == "5"  # type: ignore[index]
    page = response.content.decode()  # type: ignore[attr-defined]
    assert "<h1>Unavailable</h1>" in page
    assert 'class="brand"' in page  # the site's layout, not a bare error
    assert seconds <= THROTTLED_PAGE_SECONDS


class _Body:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: object) -> Iterator[bytes]:
        yield self.body


@pytest.fixture
def dynamodb_throttles_every_call() -> Iterator[list[str]]:
    """DynamoDB answers every HTTP request of every client with ProvisionedThroughputExceeded.

    Below botocore's retry loop (``before-send``, where a real answer would come back), so the
    production retries and backoff run as against a throttled table. Yields the operations sent.
    """
    sent: list[str] = []
    body = json.dumps(
        {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "message": "throttled"}
    ).encode()

    def throttle(request: AWSPreparedRequest, **_: object) -> AWSResponse:
        sent.append(request.headers.get("X-Amz-Target", b"").decode().rpartition(".")[2])
        headers = HTTPHeaders()
        headers["Content-Type"] = "application/x-amz-json-1.0"
        return AWSResponse(request.url, 400, headers, _Body(body))

    models = list(connection.registered().values())
    clients = {id(connection.client()): connection.client()}
    while models:
        model = models.pop()
        models.extend(model.__subclasses__())
        client = model._get_connection().connection.client
        clients[id(client)] = client
    for client in clients.values():
        client.meta.events.register("before-send.dynamodb", throttle)
    yield sent
    for client in clients.values():
        client.meta.events.unregister("before-send.dynamodb", throttle)


def test_dynamodb_throttled_past_its_retries_is_a_503_within_seconds(
    world: World, dynamodb_throttles_every_call: list[str]
) -> None:
    """Every call throttled: botocore makes its 3 attempts with backoff, then the page is a 503."""
    client = world.client_for(world.member)
    seconds, response = timed(lambda: client.get(world.project_url()))
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert response["Retry-After"] == "5"  # type: ignore[index]
    assert len(dynamodb_throttles_every_call) == connection.DEFAULT_MAX_ATTEMPTS  # one call, its attempts
    assert seconds <= THROTTLED_PAGE_SECONDS, seconds


def test_dynamodb_stalled_is_a_503_within_seconds(world: World, frozen_port: int) -> None:
    """The production timeouts and retries (1 s connect, 2 s read, 3 attempts) against a DynamoDB that never answers."""
    client = world.client_for(world.member)
    before = ddbmodels.current()
    ddbmodels.configure(
        endpoint_url=f"http://127.0.0.1:{frozen_port}",
        connect_timeout=connection.DEFAULT_CONNECT_TIMEOUT,
        read_timeout=connection.DEFAULT_READ_TIMEOUT,
        max_attempts=connection.DEFAULT_MAX_ATTEMPTS,
    )
    try:
        seconds, response = timed(lambda: client.get(world.project_url()))
    finally:
        ddbmodels.configure(
            endpoint_url=before.endpoint_url,
            connect_timeout=before.connect_timeout,
            read_timeout=before.read_timeout,
            max_attempts=before.max_attempts,
        )
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert response["Retry-After"]  # type: ignore[index]
    assert seconds <= STALLED_PAGE_SECONDS, seconds


def test_dynamodb_unreachable_is_a_503_at_once(world: World) -> None:
    client = world.client_for(world.member)
    with socket.socket() as probe:  # a port nobody listens on: connections are refused
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    before = ddbmodels.current()
    ddbmodels.configure(endpoint_url=f"http://127.0.0.1:{closed}")
    try:
        seconds, response = timed(lambda: client.get(world.project_url()))
    finally:
        ddbmodels.configure(endpoint_url=before.endpoint_url)
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert seconds <= STALLED_PAGE_SECONDS, seconds


def test_an_unexpected_error_is_a_500_page_in_the_sites_layout(world: World) -> None:
    from django.template.loader import render_to_string

    page = render_to_string("500.html")
    assert "Something went wrong" in page
    assert 'class="brand"' in page
