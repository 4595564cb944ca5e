"""Every item of one tenant, table by table, as each table package declares it (``TEAM_DATA``) — never a Scan.

What each table stores for a team, how it is found and what that costs is the table package's
declaration (``ddbmodels/<table>/team.py``, exposed by its ``__init__``; ``core.team_data`` says what a
declaration holds); ``declarations`` finds them all. Pages come in DynamoDB's wire format (what the
archive keeps, item for item) from the metered low-level client. Base tables are read strongly
consistent (an export must not miss a write of a second ago): 1 RCU per 4 KB; indexes only offer
eventually consistent reads: 0.5 RCU per 4 KB. Every Query costs at least its minimum, empty or not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from botocore.exceptions import ClientError

from ddbmodels import events, scores
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.team_data import (
    IssueRef,
    Page,
    Request,
    Shards,
    Team,
    TeamData,
    batch_get_pages,
    key_equals,
)
from ddbmodels.core.threads import map_in_threads
from ddbmodels.tenants.declarations import team_data

PROBE_WORKERS = 8  # a declaration with more probes than this (events: a Query per day and shard) fans out
DEFAULT_SHARDS = Shards(scores=scores.DEFAULT_SHARDS, events=events.DEFAULT_SHARDS)

__all__ = [
    "DEFAULT_SHARDS",
    "IssueRef",
    "Page",
    "batch_get_pages",
    "declared",
    "event_tables",
    "holding_part",
    "idempotency_pages",
    "key_equals",
    "labels_pages",
    "part_pages",
    "tenant_has_data",
    "tenant_key_name",
    "tenant_keyed_pages",
]


def declared(part: str) -> TeamData:
    """The declaration of an archive part (``events`` for every ``events-<period>``)."""
    for declaration in team_data():
        if declaration.part == part:
            return declaration
    raise KeyError(f"no table package declares the part {part!r}")


def part_pages(
    tenant: str, part: str, *, shards: Shards = DEFAULT_SHARDS, issues: Iterable[IssueRef] = ()
) -> Iterator[Page]:
    """Every item of the tenant in every table of the declared ``part`` (its ``find``; see its cost)."""
    declaration = declared(part)
    team = Team(tenant, shards, issues=list(issues))
    for _, table in declaration.physical_tables():
        yield from declaration.find(team, table)


def labels_pages(tenant: str) -> Iterator[Page]:
    """The team's label entries, then its label registry (``ddbmodels.labels``' declaration)."""
    return part_pages(tenant, "labels")


def idempotency_pages(tenant: str) -> Iterator[Page]:
    """The team's idempotency records (``ddbmodels.idempotency``' declaration)."""
    return part_pages(tenant, "idempotency_keys")


def tenant_keyed_pages(tenant: str, base: str) -> Iterator[Page]:
    """The team's items of a table keyed by the team (orders; an old layout's ``idempotency`` or ``terms``)."""
    return part_pages(tenant, base)


def tenant_key_name(base: str) -> str | None:
    """The partition key's stored name of a declared part's table, or None when this install has no such table.

    DescribeTable (free); an old layout's table only counts while its key is still the team's.
    """
    for _, table in declared(base).physical_tables():
        description = tables.describe_table(table)
        if description is not None:
            return str(next(k["AttributeName"] for k in description["KeySchema"] if k["KeyType"] == "HASH"))
    return None


def event_tables() -> list[str]:
    """ListTables (free): the events tables that exist now, oldest period first."""
    return [table for _, table in declared("events").physical_tables()]


def _holds(request: Request) -> bool:
    try:
        page = connection.client().query(**request, Limit=1, Select="COUNT", ReturnConsumedCapacity="TOTAL")
    except ClientError as error:
        if tables.error_code(error) == "ResourceNotFoundException":
            return False  # a period table archived and dropped meanwhile holds nothing
        raise
    return bool(page.get("Count", 0))


def holding_part(tenant: str, shards: Shards) -> str | None:
    """The first declared part found holding an item of the tenant (None: none does), cheapest probes first.

    Every declaration's ``probe`` of every table it has now, Limit 1, Select COUNT — 0.5 RCU each
    (ListTables and DescribeTable to know the tables: free). A declaration without a probe says which
    other's finds the team while it has such items (``found_through``). A declaration with more than
    ``PROBE_WORKERS`` probes (an events table: one per day and shard) runs them on threads, a batch at a time.
    """
    probes: list[tuple[str, list[Request]]] = []
    for declaration in team_data():
        if declaration.probe is None:
            continue
        for part, table in declaration.physical_tables():
            probes.append((part, declaration.probe(tenant, shards, table)))
    probes.sort(key=lambda probe: len(probe[1]))  # stable: the issues' projects index first
    for part, requests in probes:
        if len(requests) <= PROBE_WORKERS:
            if any(_holds(request) for request in requests):
                return part
            continue
        batch = PROBE_WORKERS * 4
        for start in range(0, len(requests), batch):
            if any(map_in_threads(_holds, requests[start : start + batch], workers=PROBE_WORKERS)):
                return part
    return None


@capacity.access_pattern("tenants.has_data")
def tenant_has_data(tenant: str, *, score_shards: int, event_shards: int = events.DEFAULT_SHARDS) -> bool:
    """Query each declared probe, Limit 1 — 0.5 RCU each: projects, orders, the label registry, inbox and jobs
    ``by_tenant``, the team's preferences and webhooks partitions, each idempotency ``by_tenant`` shard, each ``top``
    shard, each events table's days × shards.

    Attachments and comments have no key or index by team: their keys come from the team's issues,
    which are deleted last (their declarations' ``found_through``). An empty team costs every probe:
    ≈ 20 + 28–31 × ``event_shards`` per events table; a team with projects, one.
    """
    return holding_part(tenant, Shards(scores=score_shards, events=event_shards)) is not None
