"""The accept and a demotion of the invitation's creator, racing on PostgreSQL's row locks (issue 20, finding 2).

SQLite (the suite's database) runs one write transaction at a time, so the race needs PostgreSQL: a throwaway
cluster (devtools.services) and tests/tracker/invitation_race.py in a process of its own, two threads, two
connections. Skipped when PostgreSQL is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import psycopg
import pytest

from devtools import services
from tracker.env import ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

NOT_OWNER = "The person who sent this invitation is no longer an owner of Race 2, so it no longer works."


@pytest.fixture
def postgres_port() -> Iterator[int]:
    if services.postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package; `make deps-test` installs it)")
    server = services.start("postgres")
    try:
        with psycopg.connect(server.url, autocommit=True) as admin:
            admin.execute("CREATE DATABASE tracker_race")
        yield server.port
    finally:
        server.stop()


def test_an_accept_and_a_demotion_of_its_creator_never_both_win(postgres_port: int) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tests.tracker.invitation_race", str(postgres_port)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    # The accept checked first: it holds the creator's owner membership, so even a demotion that skips the
    # receivers waits for it; the newcomer joined while the creator was an owner.
    assert result["accept_first"] == {"accept": "done", "demote": "done", "demotion_waited_for_the_accept": True}
    # The demotion came first: the accept waits for its commit, then sees it, and nobody joins.
    second = result["demotion_first"]
    assert second["accept_waited_for_the_demotion"] is True
    assert str(second["accept"]).startswith(NOT_OWNER)
    assert second["newcomer_in_the_team"] is False
