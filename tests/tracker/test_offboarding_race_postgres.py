"""Accepting an invitation (a link or a request by name) while the team is offboarded, racing on PostgreSQL's
row locks (issue 20, finding 3): nobody is left in a team once offboarding has begun.

Offboarding's first transaction locks the team's row, retires the slug, withdraws (and deletes) its invitations
and removes its memberships; both accepts lock the same row first and check the slug under it. SQLite (the
suite's database) runs one write transaction at a time, so the race needs PostgreSQL: a throwaway cluster
(devtools.services) and tests/tracker/offboarding_race.py in a process of its own, two threads, two connections.
Skipped when PostgreSQL is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tracker import postgres_race

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def postgres_port() -> Iterator[int]:
    yield from postgres_race.postgres_port()


CLOSED = {
    "link": "Race 4 has closed its space on Tracker: nobody can join it any more.",
    "by name": "Race 3 has closed its space on Tracker: nobody joins it any more.",
}


def test_an_accept_and_an_offboarding_never_leave_anyone_in_the_team(postgres_port: int) -> None:
    result = postgres_race.run_race("offboarding_race", postgres_port)
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
