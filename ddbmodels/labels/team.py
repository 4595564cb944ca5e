"""What the labels tables store for a team: its label registry and every label's entries; and, until
``manage.py upgrade_search`` has run, the old layout's ``terms`` (every label and word entry under the team's key)."""

from __future__ import annotations

from collections.abc import Iterator

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import (
    Page,
    Request,
    Shards,
    Team,
    TeamData,
    key_equals,
    old_layout,
    team_keyed_pages,
)
from ddbmodels.labels.model import label_key

LEGACY_TERMS = "terms"  # the old layout's table (PK tn = the team)
LEGACY_TERMS_KEY = "tn"


@capacity.access_pattern("tenants.labels")
def label_pages(tenant: str, table: str) -> Iterator[Page]:
    """Query labels lk = the team (its label registry, consistent: 1 RCU per 4 KB), then lk = ``<team>#<label>``
    per label, consistent — 1 RCU per 4 KB of each label's entries (at least 1 a label).

    Every entry of a label is written after its registry item (``labels.registry_ensure``), so the
    registry names every key that holds one. The registry items come last, so a run deleting in this
    order that stops half way still finds the labels it has not emptied yet.
    """
    registry = [item for page in query_pages(table, **key_equals("lk", tenant, consistent=True)) for item in page]
    for item in registry:
        yield from query_pages(table, **key_equals("lk", label_key(tenant, item["s"]["S"]), consistent=True))
    if registry:
        yield registry


def _find(team: Team, table: str) -> Iterator[Page]:
    return label_pages(team.tenant, table)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    return [{"TableName": table, **key_equals("lk", tenant)}]  # the label registry: written before any entry


@capacity.access_pattern("tenants.tenant_keyed")
def _terms_find(team: Team, table: str) -> Iterator[Page]:
    """The old layout: Query tn = tenant, consistent — 1 RCU per 4 KB of the team's entries (at least 1)."""
    yield from team_keyed_pages(table, LEGACY_TERMS_KEY, team.tenant)


TEAM_DATA = (
    TeamData(part="labels", find=_find, probe=_probe, delete_order=70, index_entries="0 (no index)"),
    old_layout(LEGACY_TERMS, LEGACY_TERMS_KEY, _terms_find, delete_order=110),
)
