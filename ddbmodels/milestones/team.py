"""What the milestones table stores for a team: each of its projects' milestones."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Team, TeamData, key_equals
from ddbmodels.milestones.model import partition_key


@capacity.access_pattern("tenants.milestones")
def milestone_pages(team: Team, table: str) -> Iterator[Page]:
    """Query pk = ``<tenant>#<PROJECT>`` per project of the team, consistent — 1 RCU per 4 KB (≥ 1 a project).

    The projects come from the issues table's part (read first: ``Team.projects``).
    """
    for project in team.projects:
        yield from query_pages(table, **key_equals("pk", partition_key(team.tenant, project), consistent=True))


TEAM_DATA = (
    TeamData(
        part="milestones",
        find=milestone_pages,
        found_through="issues: a milestone is under one of the team's projects' keys, and a team's projects are "
        "deleted last (while any milestone is left, its projects still show the team has data)",
        delete_order=75,
        index_entries="0 (no index)",
    ),
)
