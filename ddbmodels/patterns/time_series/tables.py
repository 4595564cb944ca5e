"""The events tables of the current prefix: listed, counted, dropped; their provisioned throughput."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels import capacity, connection, events
from ddbmodels.events import PeriodKind


@dataclass(frozen=True)
class EventTable:
    """An events table of the current prefix, with its period."""

    name: str
    kind: PeriodKind
    period: str
    start: datetime
    end: datetime


@capacity.access_pattern("time_series.list")
def list_event_tables() -> list[EventTable]:
    """ListTables (free, 100 names a page), keep ``<prefix>events-<period id>``, oldest period first."""
    client = connection.client()
    found: list[EventTable] = []
    request: dict[str, Any] = {}
    while True:
        page = client.list_tables(**request)
        for name in page.get("TableNames", []):
            parsed = events.parse_events_table_name(name)
            if parsed is not None:
                kind, period, start = parsed
                found.append(EventTable(name, kind, period, start, events.period_shift(kind, start, 1)))
        if "LastEvaluatedTableName" not in page:
            return sorted(found, key=lambda t: (t.start, t.end, t.name))
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


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

    return sum(events.map_in_threads(count, range(segments), workers=segments))


def _drop_table(table: str) -> str:
    """DeleteTable (free); "" when dropped (or already gone), else why not."""
    try:
        connection.client().delete_table(TableName=table)
    except ClientError as error:
        code = events.error_code(error)
        if code == "ResourceNotFoundException":
            return ""
        if code in ("ResourceInUseException", "LimitExceededException"):
            return f"DeleteTable refused ({code}: {error.response['Error'].get('Message', '')})"
        raise
    return ""


def _throughput(description: Mapping[str, Any]) -> tuple[int, int]:
    pt = description.get("ProvisionedThroughput", {})
    return int(pt.get("ReadCapacityUnits", 0)), int(pt.get("WriteCapacityUnits", 0))
