"""One line per event in the log: a 4xx answer is one warning without a traceback; a 500 keeps its traceback."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from django.test import Client

from tests.tracker.conftest import World
from tracker.log_filters import NoClientErrorTraceback


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the configured console handler writes during the test (LOGGING from tracker.settings)."""
    handlers = [
        handler
        for handler in logging.getLogger().handlers
        if any(isinstance(f, NoClientErrorTraceback) for f in handler.filters)
    ]
    assert len(handlers) == 1, "LOGGING gives the root one console handler with the 4xx filter"
    handler = handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    old = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(old)


def request_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if " django.request: " in line]


def test_a_viewers_403_is_one_line_without_a_traceback(world: World, console: io.StringIO) -> None:
    response = world.client_for(world.viewer).post(world.project_url("new/"), {"title": "Not allowed"})
    assert response.status_code == 403
    output = console.getvalue()
    assert request_lines(output) == [request_lines(output)[0]]
    assert f"Forbidden (Permission denied): /t/{world.slug}/p/WEB/new/" in request_lines(output)[0]
    assert "Traceback" not in output
    assert len(output.splitlines()) == 1


def test_a_404_is_one_line_without_a_traceback(world: World, console: io.StringIO) -> None:
    response = world.client_for(world.member).get(world.project_url("999/"))
    assert response.status_code == 404
    output = console.getvalue()
    assert len(output.splitlines()) == 1
    assert f"WARNING django.request: Not Found: /t/{world.slug}/p/WEB/999/" in output
    assert "Traceback" not in output


def test_a_400_is_one_line_without_a_traceback(world: World, console: io.StringIO) -> None:
    response = world.client_for(world.member).get(world.project_url("?cursor=not-a-cursor"))
    assert response.status_code == 400
    output = console.getvalue()
    assert len(output.splitlines()) == 1
    assert f"WARNING django.request: Bad Request: /t/{world.slug}/p/WEB/" in output
    assert "Traceback" not in output


def test_a_real_error_keeps_its_traceback() -> None:
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error: /", (), None)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        record.exc_info = sys.exc_info()
    record.status_code = 500
    assert NoClientErrorTraceback().filter(record) is True
    assert record.exc_info is not None
    record.status_code = 403
    NoClientErrorTraceback().filter(record)
    assert record.exc_info is None


def test_anonymous_login_redirect_logs_nothing(console: io.StringIO, db: None) -> None:
    assert Client().get("/").status_code in (200, 302)
    assert request_lines(console.getvalue()) == []


def test_django_messages_reach_the_console_once() -> None:
    """Django's default config gives ``django`` its own console handler (in DEBUG): not here."""
    assert logging.getLogger("django").handlers == []
    assert logging.getLogger("django").propagate is True
    assert logging.getLogger("django.request").handlers == []


def test_the_dev_redis_does_not_log_every_save() -> None:
    from pathlib import Path

    from devtools.services import redis_command

    command = redis_command(6380, Path("var/redis"))
    assert command[command.index("--loglevel") + 1] == "warning"


def test_routine_login_bookkeeping_stays_out_of_the_log() -> None:
    """django-axes says three INFO lines per login; its failures and lock-outs are WARNINGs."""
    assert logging.getLogger("axes.handlers.database").getEffectiveLevel() == logging.WARNING
