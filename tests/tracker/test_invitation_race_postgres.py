"""The accept and a demotion of the invitation's creator, racing on PostgreSQL's row locks (issue 20, finding 2).

SQLite (the suite's database) runs one write transaction at a time, so the race needs PostgreSQL: a throwaway
cluster (devtools.services) and tests/tracker/invitation_race.py in a process of its own, two threads, two
connections. Skipped when PostgreSQL is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tracker import postgres_race

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

NOT_OWNER = "The person who sent this invitation is no longer an owner of Race 2, so it no longer works."


@pytest.fixture
def postgres_port() -> Iterator[int]:
    yield from postgres_race.postgres_port()


def test_an_accept_and_a_demotion_of_its_creator_never_both_win(postgres_port: int) -> None:
    result = postgres_race.run_race("invitation_race", postgres_port)
    # The accept checked first: it holds the creator's owner membership, so even a demotion that skips the
    # receivers waits for it; the newcomer joined while the creator was an owner.
    assert result["accept_first"] == {"accept": "done", "demote": "done", "demotion_waited_for_the_accept": True}
    # The demotion came first: the accept waits for its commit, then sees it, and nobody joins.
    second = result["demotion_first"]
    assert second["accept_waited_for_the_demotion"] is True
    assert str(second["accept"]).startswith(NOT_OWNER)
    assert second["newcomer_in_the_team"] is False
