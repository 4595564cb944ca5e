"""What the jobs table stores for a team: its own job items (web imports' records and claims, bulk loads'
checkpoints, written with ``tenant=``). Job items that belong to nobody (``offboard_tenant:<slug>`` among
them) carry no team and are never among them."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, index_keys_then_items, key_equals
from ddbmodels.jobs.model import BY_TENANT_INDEX


@capacity.access_pattern("tenants.jobs")
def job_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query jobs ``by_tenant`` tn = tenant (sparse, KEYS_ONLY: 0.5 RCU per 4 KB of keys), then BatchGetItem
    of those keys, consistent — 1 RCU per job item (≤ 4 KB; an import's record is < 1 KB).

    The index is eventually consistent; the consistent BatchGetItem returns only what exists, so a
    key the index still shows after a delete counts nothing.
    """
    yield from index_keys_then_items(table, BY_TENANT_INDEX, "tn", [tenant], table_key="j")


def _find(team: Team, table: str) -> Iterator[Page]:
    return job_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("tn", tenant, index=BY_TENANT_INDEX)}]


TEAM_DATA = (TeamData(part="jobs", find=_find, probe=_probe, delete_order=60, index_entries="1 (by_tenant)"),)
