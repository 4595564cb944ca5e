"""The counters table stores nothing per team."""

from __future__ import annotations

from ddbmodels.core.team_data import NoTeamData

TEAM_DATA = NoTeamData(
    "one item per named counter, global to the install (the orders' numbers are one counter for every team); "
    "a team's orders carry their numbers and leave with the orders table's part"
)
