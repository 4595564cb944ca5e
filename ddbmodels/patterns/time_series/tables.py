"""The tables of a period family under the current prefix: listed and counted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.threads import map_in_threads
from ddbmodels.patterns.time_series.family import PeriodTables
from ddbmodels.patterns.time_series.periods import PeriodKind, period_shift


@dataclass(frozen=True)
class PeriodTable:
    """A table of a period family under the current prefix, with its period."""

    name: str
    kind: PeriodKind
    period: str
    start: datetime
    end: datetime


@capacity.access_pattern("time_series.list")
def list_period_tables(family: PeriodTables) -> list[PeriodTable]:
    """ListTables (free, 100 names a page), keep ``<prefix><base><period id>``, oldest period first."""
    found: list[PeriodTable] = []
    for name in tables.list_table_names():
        parsed = family.parse_table_name(name)
        if parsed is not None:
            kind, period, start = parsed
            found.append(PeriodTable(name, kind, period, start, period_shift(kind, start, 1)))
    return sorted(found, key=lambda t: (t.start, t.end, t.name))


@capacity.access_pattern("time_series.count")
def count_items(table: str, *, consistent: bool = True, segments: int = 1) -> int:
    """Scan Select=COUNT — 1 RCU per 4 KB of items read (0.5 if not consistent), no items returned."""
    client = connection.client()

    def count(segment: int) -> int:
        request: dict[str, Any] = {"TableName": table, "Select": "COUNT", "ConsistentRead": consistent}
        request.update({"Segment": segment, "TotalSegments": segments} if segments > 1 else {})
        total = 0
        while True:
            page = client.scan(ReturnConsumedCapacity="TOTAL", **request)
            total += int(page["Count"])
            if "LastEvaluatedKey" not in page:
                return total
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    return sum(map_in_threads(count, range(segments), workers=segments))
