"""What the idempotency tables store for a team: its creation records, and the old layout's while it exists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import (
    Page,
    Request,
    Shards,
    Team,
    TeamData,
    batch_get_pages,
    key_equals,
    team_keyed_table,
)
from ddbmodels.idempotency.model import BY_TENANT_INDEX, LEGACY, shard_keys

LEGACY_KEY = "t"  # the old layout's partition key: the team


@capacity.access_pattern("tenants.idempotency")
def record_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query ``by_tenant`` ts = ``<team>#<n>`` per shard (KEYS_ONLY: 0.5 RCU per 4 KB of keys, at least 0.5 a
    shard), then BatchGetItem of those keys, consistent — 1 RCU per record.

    The index is eventually consistent; the consistent BatchGetItem returns only what exists.
    """
    keys: list[dict[str, Any]] = []
    for shard in shard_keys(tenant):
        for page in query_pages(table, **key_equals("ts", shard, index=BY_TENANT_INDEX)):
            keys.extend({"k": item["k"]} for item in page)
    for page in batch_get_pages(table, keys):
        if page:
            yield page


def _find(team: Team, table: str) -> Iterator[Page]:
    return record_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("ts", shard, index=BY_TENANT_INDEX)} for shard in shard_keys(tenant)]


@capacity.access_pattern("tenants.tenant_keyed")
def _legacy_find(team: Team, table: str) -> Iterator[Page]:
    """The old layout: Query t = tenant, consistent — 1 RCU per 4 KB of the team's records (at least 1)."""
    yield from query_pages(table, **key_equals(LEGACY_KEY, team.tenant, consistent=True))


def _legacy_probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals(LEGACY_KEY, tenant)}]


TEAM_DATA = (
    TeamData(
        part="idempotency_keys",
        find=_find,
        probe=_probe,
        delete_order=80,
        index_entries="1 (by_tenant)",
    ),
    # Until ``manage.py upgrade_search`` has run, an install still holds a team's records under the team's key.
    TeamData(
        part=LEGACY,
        find=_legacy_find,
        probe=_legacy_probe,
        tables=lambda: team_keyed_table(LEGACY, LEGACY_KEY),
        delete_order=100,
        index_entries="0",
    ),
)
