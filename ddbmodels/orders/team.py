"""What the orders table stores for a team: its orders, one item collection under PK c = the team."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals


@capacity.access_pattern("tenants.tenant_keyed")
def _find(team: Team, table: str) -> Iterator[Page]:
    """Query c = tenant, consistent — 1 RCU per 4 KB of the team's orders (at least 1)."""
    yield from query_pages(table, **key_equals("c", team.tenant, consistent=True))


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("c", tenant)}]


TEAM_DATA = (
    TeamData(part="orders", find=_find, probe=_probe, delete_order=90, index_entries="2 (by_time, by_number)"),
)
