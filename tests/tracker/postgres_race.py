"""What the PostgreSQL race tests share: the parent's side (a throwaway cluster, the race run in a process of
its own, its JSON line) and the child's (Django on that cluster, a worker thread on a connection of its own).

SQLite (the suite's database) runs one write transaction at a time, so a race on row locks needs PostgreSQL.
The child is ``python -m tests.tracker.<race> <port>``: it calls ``start_django`` before importing anything of
Django's models, then prints one JSON line, which ``run_race`` returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tracker.env import ROOT

DATABASE = "tracker_race"


def postgres_port() -> Iterator[int]:
    """A throwaway PostgreSQL with an empty ``tracker_race`` database; skips when PostgreSQL is not installed."""
    import psycopg
    import pytest

    from devtools import services

    if services.postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package; `make deps-test` installs it)")
    server = services.start("postgres")
    try:
        with psycopg.connect(server.url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {DATABASE}")
        yield server.port
    finally:
        server.stop()


def run_race(module: str, port: int) -> dict[str, Any]:
    """Run ``tests.tracker.<module>`` against the cluster on ``port``; the JSON line it printed last."""
    run = subprocess.run(
        [sys.executable, "-m", f"tests.tracker.{module}", str(port)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def start_django() -> None:
    """In the child: the test settings on the cluster whose port is the first argument, then django.setup()."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "tracker.settings.test"
    import django
    from django.conf import settings  # the database is chosen before Django starts

    settings.DATABASES["default"] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE,
        "USER": "postgres",
        "HOST": "127.0.0.1",
        "PORT": sys.argv[1],
    }
    django.setup()


def thread(work: Callable[[], object], into: dict[str, object], name: str) -> threading.Thread:
    """Start ``work`` on a thread (its own connection); ``into[name]`` is "done" or the refusal's words."""
    from django.core.exceptions import ValidationError
    from django.db import connection

    from tracker.services import team

    def run() -> None:
        try:
            work()
            into[name] = "done"
        except team.InvitationUnusable as refused:
            into[name] = refused.reason
        except ValidationError as refused:
            into[name] = refused.messages[0]
        finally:
            connection.close()

    started = threading.Thread(target=run)
    started.start()
    return started
