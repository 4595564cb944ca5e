"""Accepting an invitation (a link or a request by name) while the team is offboarded, racing on PostgreSQL's
row locks (issue 20, finding 3): nobody is left in a team once offboarding has begun.

Offboarding's first transaction locks the team's row, retires the slug, withdraws (and deletes) its invitations
and removes its memberships; both accepts lock the same row first and check the slug under it. SQLite (the
suite's database) runs one write transaction at a time, so the race needs PostgreSQL: a throwaway cluster
(devtools.services) and tests/tracker/offboarding_race.py in a process of its own, two threads, two connections.
Skipped when PostgreSQL is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.tracker.test_invitation_race_postgres import postgres_port  # noqa: F401  (the fixture)
from tracker.env import ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

CLOSED = {
    "link": "Race 4 has closed its space on Tracker: nobody can join it any more.",
    "by name": "Race 3 has closed its space on Tracker: nobody joins it any more.",
}


def test_an_accept_and_an_offboarding_never_leave_anyone_in_the_team(postgres_port: int) -> None:  # noqa: F811
    run = subprocess.run(
        [sys.executable, "-m", "tests.tracker.offboarding_race", str(postgres_port)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings.test"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    # The accept checked first: offboarding waits for its commit on the team's row, then removes the newcomer too.
    for kind in ("by_name", "link"):
        assert result[f"{kind}_accept_first"] == {
            "accept": "done",
            "offboard": "done",
            "offboarding_waited_for_the_accept": True,
            "newcomer_in_the_team": False,
            "memberships_left": 0,
        }, kind
    # Offboarding began first: the accept waits for its commit on the team's row, then sees the retired slug.
    for kind, closed in (("by_name", CLOSED["by name"]), ("link", CLOSED["link"])):
        assert result[f"{kind}_offboarding_first"] == {
            "offboard": "done",
            "accept": closed,
            "accept_waited_for_the_offboarding": True,
            "newcomer_in_the_team": False,
        }, kind
