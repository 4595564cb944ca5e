"""What a table package stores for a team: how to find every item of it, how to probe for one, how to delete it.

Each table package's ``__init__`` exposes ``TEAM_DATA``: a tuple of ``TeamData`` (one per archive part
the package writes: its table, an old layout's table, or one part per period table), or
``NoTeamData(reason)`` when nothing it stores belongs to a team. ``ddbmodels.tenants`` loops over
these declarations for offboarding (export, delete order, check) and for "does this team still
hold data?"; ``tests/ddbmodels/tenants/test_team_data.py`` fails for a table package that
declares neither. Nothing here reads a table by itself: the declarations' functions do.

Pages are DynamoDB's wire format (what the archive keeps, item for item), whole items, read
through keys that hold the team — never a Scan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ddbmodels.core import connection, tables
from ddbmodels.core.items import batch_get_pages, key_equals, query_pages

Page = list[dict[str, Any]]
IssueRef = tuple[str, int]  # (project key, issue number)
Request = dict[str, Any]  # a Query request, TableName included


@dataclass(frozen=True)
class Shards:
    """How many write shards the tenant's sharded index keys may use (read at least as many as written)."""

    scores: int
    events: int


@dataclass
class Team:
    """What a declaration's ``find`` is given: the team, its shard counts, and its projects and issues known so far.

    ``projects`` and ``issues`` are filled by the declaration that ``lists_issues`` (the issues table,
    read first): the tables that hold an issue's items without a key or index by team derive their
    keys from them.
    """

    tenant: str
    shards: Shards
    issues: list[IssueRef] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)


Find = Callable[[Team, str], Iterator[Page]]  # (team, physical table) -> pages of the team's whole items
Probe = Callable[[str, Shards, str], list[Request]]  # (tenant, shards, physical table) -> Limit-1 Queries
Tables = Callable[[], list[tuple[str, str]]]  # -> (archive part name, physical table) that exist now


@dataclass(frozen=True)
class TeamData:
    """One kind of a team's items: an archive part (or one per period table) of one table package.

    part            the archive part's name, kept in manifests and offboarding checkpoints: never rename
                    one (a checkpoint written before would no longer match); for per-period tables the
                    prefix of ``<part>-<period>``, the name ``tables`` gives
    find            every item of the team in a physical table, pages of whole items in wire format
    delete_order    parts are deleted in ascending order (the issues last: while anything else is left,
                    the team's projects still show it has data)
    index_entries   what one delete costs beyond 1 WCU per KB: the item's index entries, in words
                    (``tenants.offboarding``'s cost note lists them from here)
    probe           Query requests (Limit 1 is added) of which one returns an item whenever the team has
                    any here — "does this team still hold data?"; or None, with ``found_through``
    found_through   why no probe is needed: which other declaration's probe finds a team that has these
                    items (every key of them is derived from it)
    tables          (part name, physical table) that exist now; default: the registered table ``part``
    lists_issues    this part's ``find`` fills ``Team.issues`` (read before every other part)
    file_attribute  the attribute naming a stored file the item owns (exported and deleted with it)
    redacted        what ``find`` leaves out of the items it gives (so out of the export), in words, for the
                    archive's manifest (webhooks: the endpoints' signing secrets); empty: whole items
    """

    part: str
    find: Find
    delete_order: int
    index_entries: str
    probe: Probe | None = None
    found_through: str = ""
    tables: Tables | None = None
    lists_issues: bool = False
    file_attribute: str | None = None
    redacted: str = ""

    def __post_init__(self) -> None:
        if (self.probe is None) == (not self.found_through):
            raise ValueError(f"TeamData {self.part!r}: give a probe, or found_through saying why none is needed")
        if not self.index_entries:
            raise ValueError(f"TeamData {self.part!r}: say which index entries a delete removes (index_entries)")

    def physical_tables(self) -> list[tuple[str, str]]:
        """(part name, physical table) of this declaration that exist now (ListTables/DescribeTable: free)."""
        if self.tables is not None:
            return self.tables()
        return [(self.part, connection.table_name(self.part))]


@dataclass(frozen=True)
class NoTeamData:
    """A table package that stores nothing per team, and why (e.g. one global item per named counter)."""

    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError("NoTeamData needs the reason nothing is stored per team")


Declaration = tuple[TeamData, ...] | NoTeamData

__all__ = [
    "Declaration",
    "Find",
    "IssueRef",
    "NoTeamData",
    "Page",
    "Probe",
    "Request",
    "Shards",
    "Tables",
    "Team",
    "TeamData",
    "batch_get_pages",
    "index_keys_then_items",
    "issue_partition_pages",
    "key_equals",
    "old_layout",
    "team_keyed_pages",
    "team_keyed_probe",
    "team_keyed_table",
]


def team_keyed_table(base: str, key_name: str) -> list[tuple[str, str]]:
    """``[(base, physical table)]`` when the table ``base`` exists with partition key ``key_name`` (an old
    layout still keyed by the team), else ``[]`` — DescribeTable, free."""
    table = connection.table_name(base)
    description = tables.describe_table(table)
    if description is None:
        return []
    hash_key = [k["AttributeName"] for k in description["KeySchema"] if k["KeyType"] == "HASH"]
    return [(base, table)] if hash_key == [key_name] else []


def team_keyed_pages(table: str, key_name: str, tenant: str) -> Iterator[Page]:
    """Query ``key_name`` = tenant, consistent: the team's one item collection (1 RCU per 4 KB, at least 1)."""
    yield from query_pages(table, **key_equals(key_name, tenant, consistent=True))


def team_keyed_probe(key_name: str) -> Probe:
    """The probe of a table keyed by the team: Query ``key_name`` = tenant."""

    def probe(tenant: str, shards: Shards, table: str) -> list[Request]:
        return [{"TableName": table, **key_equals(key_name, tenant)}]

    return probe


def old_layout(part: str, key_name: str, find: Find, *, delete_order: int) -> TeamData:
    """An old layout's table ``part`` still keyed by the team (``key_name``), while it exists (no index)."""
    return TeamData(
        part=part,
        find=find,
        probe=team_keyed_probe(key_name),
        tables=lambda: team_keyed_table(part, key_name),
        delete_order=delete_order,
        index_entries="0",
    )


def index_keys_then_items(
    table: str, index: str, key_name: str, values: Iterable[str], *, table_key: str
) -> Iterator[Page]:
    """Query the KEYS_ONLY ``index`` ``key_name`` = each of ``values``, then BatchGetItem (consistent) of the
    ``table_key`` keys found; empty pages are left out.

    The index is eventually consistent; the consistent BatchGetItem returns only what exists, so a
    key the index still shows after a delete counts nothing.
    """
    keys: list[dict[str, Any]] = []
    for value in values:
        for page in query_pages(table, **key_equals(key_name, value, index=index)):
            keys.extend({table_key: item[table_key]} for item in page)
    for page in batch_get_pages(table, keys):
        if page:
            yield page


def issue_partition_pages(
    team: Team, table: str, key_name: str, partition: Callable[[str, str, int], str]
) -> Iterator[Page]:
    """Query ``key_name`` = ``partition(tenant, project, number)`` per issue of ``team``, consistent — for a
    table with no key or index by team, whose keys come from the issue numbers listed."""
    for project, number in team.issues:
        yield from query_pages(table, **key_equals(key_name, partition(team.tenant, project, number), consistent=True))
