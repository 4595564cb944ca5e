"""What the idempotency tables store for a team: its creation records, and the old layout's while it exists."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.team_data import (
    Page,
    Request,
    Shards,
    Team,
    TeamData,
    index_keys_then_items,
    key_equals,
    old_layout,
    team_keyed_pages,
)
from ddbmodels.idempotency.model import BY_TENANT_INDEX, LEGACY, shard_keys

LEGACY_KEY = "t"  # the old layout's partition key: the team


@capacity.access_pattern("tenants.idempotency")
def record_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query ``by_tenant`` ts = ``<team>#<n>`` per shard (KEYS_ONLY: 0.5 RCU per 4 KB of keys, at least 0.5 a
    shard), then BatchGetItem of those keys, consistent — 1 RCU per record.

    The index is eventually consistent; the consistent BatchGetItem returns only what exists.
    """
    yield from index_keys_then_items(table, BY_TENANT_INDEX, "ts", shard_keys(tenant), table_key="k")


def _find(team: Team, table: str) -> Iterator[Page]:
    return record_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("ts", shard, index=BY_TENANT_INDEX)} for shard in shard_keys(tenant)]


@capacity.access_pattern("tenants.tenant_keyed")
def _legacy_find(team: Team, table: str) -> Iterator[Page]:
    """The old layout: Query t = tenant, consistent — 1 RCU per 4 KB of the team's records (at least 1)."""
    yield from team_keyed_pages(table, LEGACY_KEY, team.tenant)


TEAM_DATA = (
    TeamData(
        part="idempotency_keys",
        find=_find,
        probe=_probe,
        delete_order=80,
        index_entries="1 (by_tenant)",
    ),
    # Until ``manage.py upgrade_search`` has run, an install still holds a team's records under the team's key.
    old_layout(LEGACY, LEGACY_KEY, _legacy_find, delete_order=100),
)
