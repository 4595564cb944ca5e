"""What the events tables store for a team: every event of its issues, in each period's table (one archive
part per table: ``events-<period id>``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

from ddbmodels.core import capacity
from ddbmodels.core.items import query_pages
from ddbmodels.core.team_data import Page, Request, Shards, Team, TeamData, key_equals
from ddbmodels.events.lifecycle import list_event_tables
from ddbmodels.events.model import BY_DAY_INDEX, EVENTS, day_key
from ddbmodels.patterns.time_series import period_shift

PART = "events"


def event_tables() -> list[tuple[str, str]]:
    """ListTables (free): (``events-<period id>``, table) of the events tables that exist now, oldest first."""
    return [(f"{PART}-{table.period}", table.name) for table in list_event_tables()]


def _days(table: str) -> list[date]:
    parsed = EVENTS.parse_table_name(table)
    if parsed is None:
        raise ValueError(f"{table} is not an events table")
    kind, _, start = parsed
    days = (period_shift(kind, start, 1) - start).days
    return [(start + timedelta(days=offset)).date() for offset in range(days)]


@capacity.access_pattern("tenants.events")
def event_pages(tenant: str, table: str, *, shards: int) -> Iterator[Page]:
    """Query ``by_day`` d = ``<tenant>#<day>#<n>`` for every day of the table's period and every shard.

    0.5 RCU per 4 KB per Query (ALL projection: whole events), at least 0.5 per (day, shard): a
    month's table is 28–31 × N Queries, a day's N.
    """
    for day in _days(table):
        for shard in range(1, shards + 1):
            yield from query_pages(table, **key_equals("d", day_key(tenant, day, shard), index=BY_DAY_INDEX))


def _find(team: Team, table: str) -> Iterator[Page]:
    return event_pages(team.tenant, table, shards=team.shards.events)


def _probe(tenant: str, shards: Shards, table: str) -> list[Request]:
    """One Query per (day, shard) of the table's period: a month's table 28–31 × N."""
    return [
        {"TableName": table, **key_equals("d", day_key(tenant, day, shard), index=BY_DAY_INDEX)}
        for day in _days(table)
        for shard in range(1, shards.events + 1)
    ]


TEAM_DATA = (
    TeamData(
        part=PART,
        find=_find,
        probe=_probe,
        tables=event_tables,
        delete_order=40,
        index_entries="1 (by_day)",
    ),
)
