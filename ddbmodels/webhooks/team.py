"""What the webhooks table stores for a team: its partition (every endpoint, tombstones included) and each
endpoint's partition (its deliveries). Offboarding exports them without the endpoints' signing secrets (``_find``)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals
from ddbmodels.webhooks.model import ENDPOINT_PREFIX, endpoint_key, team_key

SIGNING = "sc"  # the attribute of an endpoint's signing secret (model.py)


@capacity.access_pattern("tenants.webhooks")
def webhook_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query pk = "<team>#hooks" (consistent: 1 RCU per 4 KB, ≈ 300 B an endpoint), then pk =
    "<team>#hooks#<id>" per endpoint it names, consistent — 1 RCU per 4 KB of each endpoint's deliveries
    (at least 1 an endpoint).

    A deleted endpoint stays as a tombstone until its deliveries have expired, so the team partition names
    every endpoint partition; it comes last, so a run deleting in this order that stops half way still
    finds the partitions it has not emptied yet.
    """
    own = [item for page in query_pages(table, **key_equals("pk", team_key(tenant), consistent=True)) for item in page]
    for item in own:
        sort = item["s"]["S"]
        if sort.startswith(ENDPOINT_PREFIX):
            partition = endpoint_key(tenant, sort.removeprefix(ENDPOINT_PREFIX))
            yield from query_pages(table, **key_equals("pk", partition, consistent=True))
    if own:
        yield own


REDACTED = (
    "sc, each endpoint's signing secret, is left out: the team's receivers may still trust it, and "
    "whoever holds this export must not be able to sign webhooks they accept"
)


def _find(team: Team, table: str) -> Iterator[Page]:
    """The team's items as ``webhook_pages`` reads them, each endpoint without its secret (``REDACTED``)."""
    for page in webhook_pages(team.tenant, table):
        yield [{name: value for name, value in item.items() if name != SIGNING} for item in page]


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("pk", team_key(tenant))}]  # an endpoint is put before its deliveries


TEAM_DATA = (
    TeamData(
        part="webhooks",
        find=_find,
        probe=_probe,
        delete_order=66,
        index_entries="0 (an endpoint, a delivery done), 1 (due: a pending delivery)",
        redacted=REDACTED,
    ),
)
