"""What the webhooks table stores for a team: nothing yet (its model is being built; it then declares its parts)."""

from __future__ import annotations

from ddbmodels.core.team_data import NoTeamData

TEAM_DATA = NoTeamData("no table yet: the webhooks model (issue 22) replaces this with its endpoints and deliveries")
