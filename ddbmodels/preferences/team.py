"""What the preferences table stores for a team: its partition (shared views, the person registry, the
notification settings) and each registered person's partition (their views)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals
from ddbmodels.preferences.model import PERSON_PREFIX, person_key, team_key


@capacity.access_pattern("tenants.preferences")
def preference_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query pk = "<team>#t" (consistent: 1 RCU per 4 KB), then pk = "<team>#u#<name>" per person it names,
    consistent — 1 RCU per 4 KB of each person's views (at least 1 a person).

    A person's registry item is written before their first view, so the team partition names every
    person partition; it comes last, so a run deleting in this order that stops half way still finds
    the partitions it has not emptied yet.
    """
    own = [item for page in query_pages(table, **key_equals("pk", team_key(tenant), consistent=True)) for item in page]
    for item in own:
        sort = item["s"]["S"]
        if sort.startswith(PERSON_PREFIX):
            yield from query_pages(
                table, **key_equals("pk", person_key(tenant, sort.removeprefix(PERSON_PREFIX)), consistent=True)
            )
    if own:
        yield own


def _find(team: Team, table: str) -> Iterator[Page]:
    return preference_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("pk", team_key(tenant))}]  # written before any person's item


TEAM_DATA = (TeamData(part="preferences", find=_find, probe=_probe, delete_order=65, index_entries="0 (no index)"),)
