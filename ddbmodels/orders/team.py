"""What the orders table stores for a team: its orders, one item collection under PK c = the team."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.team_data import Page, Team, TeamData, team_keyed_pages, team_keyed_probe


@capacity.access_pattern("tenants.tenant_keyed")
def _find(team: Team, table: str) -> Iterator[Page]:
    """Query c = tenant, consistent — 1 RCU per 4 KB of the team's orders (at least 1)."""
    yield from team_keyed_pages(table, "c", team.tenant)


TEAM_DATA = (
    TeamData(
        part="orders", find=_find, probe=team_keyed_probe("c"), delete_order=90, index_entries="2 (by_time, by_number)"
    ),
)
