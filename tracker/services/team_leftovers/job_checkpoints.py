"""Checkpoints of the jobs shared by every team that may name one (the ``jobs`` table).

A team's own job items (imports, bulk loads, a leaderboard repair) carry the team and are deleted
with its data (``ddbmodels.jobs``' declaration). The jobs that visit every team keep their place in
one shared item: ``backfill_project_counts`` the last project collection done (``<team>#<PROJECT>``:
dropped, the next run starts from the beginning — it is idempotent), ``upgrade_search`` a JSON state
with the teams done and the one under way (rewritten without the team: ``names.Team.redact``). One
GetItem per job (1 RCU), and one conditional UpdateItem (1 WCU) per checkpoint changed: a run that
moved on meanwhile is left alone. ``tests/tracker/test_team_leftovers.py`` fails for a module that
saves a job checkpoint and is not accounted for here.
"""

from __future__ import annotations

import json

from ddbmodels import jobs
from tracker.services.team_leftovers.names import Team

SHARED_CHECKPOINT_JOBS = ("backfill_project_counts", "upgrade_search")


def _without(team: Team, checkpoint: str) -> str | None:
    try:
        state = json.loads(checkpoint)
    except ValueError:
        return None
    if not isinstance(state, dict):
        return None
    return json.dumps(team.redact(state)[0])


def shared_checkpoints(team: Team, *, apply: bool) -> int:
    """Shared jobs' checkpoints naming the team: how many (rewritten without it, or dropped, when ``apply``)."""
    found = 0
    for name in SHARED_CHECKPOINT_JOBS:
        state = jobs.job_state(name)
        if state is None or not state.checkpoint or not team.names(state.checkpoint):
            continue
        if not apply or jobs.checkpoint_replace(name, state.checkpoint, _without(team, state.checkpoint)):
            found += 1
    return found
