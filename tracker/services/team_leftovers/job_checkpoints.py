"""Checkpoints of the jobs shared by every team that may name one (the ``jobs`` table).

A team's own job items (imports, bulk loads, a leaderboard repair) carry the team and are deleted
with its data (``ddbmodels.jobs``' declaration). The jobs that visit every team keep their place in
one shared item: ``backfill_project_counts`` the last project collection done (``<team>#<PROJECT>``:
dropped when it is the team's key, the next run starts from the beginning — it is idempotent),
``upgrade_search`` a JSON state with the teams done and the one under way (rewritten without the entries
equal to the slug or its keys: ``names.Team.redact``; with ``"tenant": <slug>``, the ``rebuild`` position in
that team goes too; nothing else is read). One
GetItem per job (1 RCU), and one conditional UpdateItem (1 WCU) per checkpoint changed: a run that
moved on meanwhile is left alone. ``tests/tracker/test_team_leftovers.py`` fails for a module that
saves a job checkpoint and is not accounted for here.
"""

from __future__ import annotations

import json

from ddbmodels import jobs
from tracker.services.team_leftovers.names import Team

SHARED_CHECKPOINT_JOBS = ("backfill_project_counts", "upgrade_search")
# A state's entries about the team under way (``"tenant": <slug>``): upgrade_search's rebuild position in it.
UNDER_WAY = ("tenant", "rebuild")


def _without(team: Team, checkpoint: str) -> tuple[str | None, bool]:
    """The checkpoint without the team's entries (None: dropped), and whether it held any."""
    if team.owns(checkpoint):
        return None, True  # the team's key itself (``<team>#<PROJECT>``)
    try:
        state = json.loads(checkpoint)
    except ValueError:
        return checkpoint, False
    if not isinstance(state, dict):
        return checkpoint, False
    if state.get("tenant") == team.slug:  # the team under way: its position in that team goes with it
        state = {key: value for key, value in state.items() if key not in UNDER_WAY}
        return json.dumps(team.redact(state)[0]), True
    new, removed = team.redact(state)
    return json.dumps(new), bool(removed)


def shared_checkpoints(team: Team, *, apply: bool) -> int:
    """Shared jobs' checkpoints naming the team: how many (rewritten without it, or dropped, when ``apply``)."""
    found = 0
    for name in SHARED_CHECKPOINT_JOBS:
        state = jobs.job_state(name)
        if state is None or not state.checkpoint:
            continue
        without, held = _without(team, state.checkpoint)
        if held and (not apply or jobs.checkpoint_replace(name, state.checkpoint, without)):
            found += 1
    return found
