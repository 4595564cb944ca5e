"""What the scores table stores for a team: its members' score items and the award item of each awarded issue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, batch_get_pages, key_equals
from ddbmodels.scores.model import TOP_INDEX, award_key


@capacity.access_pattern("tenants.scores")
def score_pages(team: Team, table: str) -> Iterator[Page]:
    """Score items: Query ``top`` tp = ``<tenant>#<n>`` per shard (KEYS_ONLY, 0.5 RCU per 4 KB) + BatchGetItem;
    award items: BatchGetItem of ``<tenant>#issue#<PROJECT>#<n>`` per issue (not in the index) — 1 RCU a key.
    """
    score_keys: list[dict[str, Any]] = []
    for shard in range(1, team.shards.scores + 1):
        for page in query_pages(table, **key_equals("tp", f"{team.tenant}#{shard}", index=TOP_INDEX)):
            score_keys.extend({"pk": item["pk"]} for item in page)
    yield from batch_get_pages(table, score_keys)
    yield from batch_get_pages(table, ({"pk": {"S": award_key(team.tenant, p, n)}} for p, n in team.issues))


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    """The score items' shards: an award is written with the awarded member's score item."""
    return [
        {"TableName": table, **key_equals("tp", f"{tenant}#{shard}", index=TOP_INDEX)}
        for shard in range(1, shards.scores + 1)
    ]


TEAM_DATA = (
    TeamData(
        part="scores",
        find=score_pages,
        probe=_probe,
        delete_order=30,
        index_entries="score items 1 (top), awards 0",
    ),
)
