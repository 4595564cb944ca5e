"""One line per event in the log: a 4xx answer is one warning without a traceback; a 500 keeps its traceback."""

from __future__ import annotations

import io
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.mail import EmailMessage
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application
from django.test import Client

import ddbmodels
from ddbmodels import inbox
from ddbmodels.core.keys import utcnow
from ddbmodels.events.model import new_sort_key
from ddbmodels.inbox import mail as inbox_mail
from devtools.services import Service
from tests.tracker.conftest import World
from tracker import tasks
from tracker.env import ROOT
from tracker.log_filters import NoClientErrorTraceback
from tracker.mail import LogEmailBackend


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


# ------------------------------------------------------------------ the development server's lines


@pytest.fixture
def dev_server(db: None) -> Iterator[str]:
    """Django's development server (runserver's server, request handler and static files handler), on a free port."""
    server = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler, allow_reuse_address=False)
    server.set_app(StaticFilesHandler(get_wsgi_application()))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def fetch(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310  (our own test server)
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def django_lines(output: str) -> list[str]:
    """The ``django.*`` lines, without their time and response sizes (they vary)."""
    lines = [line.split(" ", 2)[2] for line in output.splitlines() if " django." in line]
    return [re.sub(r'(" \d{3}) \d+$', r"\1", line) for line in lines]


def settled(console: io.StringIO, expected: int) -> list[str]:
    """The ``django.*`` lines once ``expected`` of them are there (or after 5 s).

    wsgiref logs a request when it closes it, after the client has read the answer: the last
    line may come a moment after ``fetch`` returned.
    """
    deadline = time.monotonic() + 5
    while len(django_lines(console.getvalue())) < expected and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.1)  # and nothing more comes
    return django_lines(console.getvalue())


def test_the_dev_server_says_a_404_once_and_a_static_file_not_at_all(dev_server: str, console: io.StringIO) -> None:
    assert fetch(f"{dev_server}/nope/") == 404
    assert fetch(f"{dev_server}/static/tracker/inbox.css") == 200
    assert fetch(f"{dev_server}/accounts/login/") == 200
    assert fetch(f"{dev_server}/static/tracker/missing.css") == 404

    assert settled(console, 3) == [
        "WARNING django.request: Not Found: /nope/",
        'INFO django.server: "GET /accounts/login/ HTTP/1.1" 200',
        # static files are served around Django's handler: runserver's line is the only one saying it
        'WARNING django.server: "GET /static/tracker/missing.css HTTP/1.1" 404',
    ]


def test_static_request_lines_show_at_debug(dev_server: str, console: io.StringIO) -> None:
    server_log = logging.getLogger("django.server")
    before = server_log.level
    server_log.setLevel(logging.DEBUG)  # what LOG_LEVEL=DEBUG does
    try:
        assert fetch(f"{dev_server}/static/tracker/inbox.css") == 200
        lines = settled(console, 1)
    finally:
        server_log.setLevel(before)
    assert lines == ['DEBUG django.server: "GET /static/tracker/inbox.css HTTP/1.1" 200']


# ------------------------------------------------------------------ e-mails in development


def test_a_dev_email_is_one_info_line_and_a_file_with_the_whole_message(
    console: io.StringIO, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = EmailMessage(
        subject="alice mentioned you on WEB-12", body="Line one\nLine two\n\nhttp://x/", to=["bob@example.com"]
    )
    folder = tmp_path / "mail"

    assert LogEmailBackend(file_path=str(folder)).send_messages([message]) == 1

    (written,) = sorted(folder.iterdir())
    lines = [line.split(" ", 2)[2] for line in console.getvalue().splitlines()]
    assert lines == [f"INFO tracker.mail: e-mail to bob@example.com: alice mentioned you on WEB-12 ({written})"]
    assert "Line two" in written.read_text()
    assert "Subject: alice mentioned you on WEB-12" in written.read_text()
    assert capsys.readouterr().out == ""  # nothing on stdout: the Celery worker would log each line of it


def test_without_a_folder_a_dev_email_is_only_its_line(console: io.StringIO) -> None:
    message = EmailMessage(subject="carol moved WEB-3", body="…", to=["bob@example.com", "dave@example.com"])
    assert LogEmailBackend(file_path="").send_messages([message]) == 1
    lines = [line.split(" ", 2)[2] for line in console.getvalue().splitlines()]
    assert lines == ["INFO tracker.mail: e-mail to bob@example.com, dave@example.com: carol moved WEB-3"]


def test_the_local_settings_log_emails_and_keep_them_under_var_mail() -> None:
    import os
    import subprocess
    import sys

    code = "from django.conf import settings as s; print(s.EMAIL_BACKEND); print(s.EMAIL_FILE_PATH)"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.local"}
    env.pop("EMAIL_BACKEND", None)
    env.pop("EMAIL_FILE_PATH", None)
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.split()
    assert out[0] == "tracker.mail.LogEmailBackend"
    assert out[1].endswith("var/mail")


@pytest.mark.slow
def test_a_dev_email_is_one_info_line_in_the_workers_log(
    world: World, redis_server: Service, ddblocal: ddbmodels.DynamoSettings, tmp_path: Path
) -> None:
    """The local settings' worker (Procfile: ``celery worker --loglevel INFO``) says an e-mail in one line."""
    from tracker.celery import app

    with app.connection_for_write() as connection:  # other tests' messages are not this worker's work
        connection.default_channel.queue_purge("celery")
    bob = world.member.username
    key = new_sort_key(utcnow())
    note = inbox.Note(bob, "WEB", 1, "alice", "comment.added", "alice mentioned you on WEB-1: deploy it")
    inbox.deliver(tenant=world.slug, event_key=key, notes=[note])
    window = inbox_mail.window_add(tenant=world.slug, username=bob, project_key="WEB", number=1, event_key=key)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tracker.settings.local",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "REDIS_URL": f"{redis_server.url}/0",
        "CELERY_RESULT_BACKEND": f"{redis_server.url}/1",
        "DYNAMODB_ENDPOINT_URL": ddblocal.endpoint_url or "",
        "DYNAMODB_TABLE_PREFIX": ddblocal.table_prefix,
        "EMAIL_FILE_PATH": str(tmp_path / "mail"),
    }
    env.pop("EMAIL_BACKEND", None)
    log_path = tmp_path / "worker.log"
    with log_path.open("wb") as log_file:
        worker = subprocess.Popen(
            [
                *[sys.executable, "-m", "celery", "-A", "tracker", "worker", "--pool", "solo", "--loglevel", "INFO"],
                *["--without-gossip", "--without-mingle", "--without-heartbeat"],
            ],
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        tasks.send_notification_digest.apply_async(
            kwargs={
                "tenant": world.slug,
                "username": bob,
                "address": "bob@example.com",
                "project_key": "WEB",
                "number": 1,
                "start": window.start,
                "title": "Deploy",
            }
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "send_notification_digest" not in _succeeded(log_path):
            assert worker.poll() is None, log_path.read_text()
            time.sleep(0.3)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(20)
    output = log_path.read_text()
    mail_lines = [line for line in output.splitlines() if "bob@example.com" in line or "deploy it" in line]
    assert len(mail_lines) == 1, output
    assert re.fullmatch(
        r"\[[^]]+: INFO/MainProcess\] e-mail to bob@example\.com: alice mentioned you on WEB-1: deploy it \(.+\.eml\)",
        mail_lines[0],
    ), mail_lines
    assert "WARNING" not in output, output
    (written,) = sorted((tmp_path / "mail").iterdir())  # the whole message: its file
    assert "deploy it" in written.read_text()


def _succeeded(log_path: Path) -> str:
    return "\n".join(line for line in log_path.read_text().splitlines() if " succeeded in " in line)
