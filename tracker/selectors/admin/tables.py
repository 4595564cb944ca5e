"""The app's DynamoDB tables as the admin shows them: names under the prefix, descriptions, archives."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import Http404

from ddbmodels import events
from ddbmodels.core import capacity, connection, partitions, tables
from ddbmodels.core.errors import AWS_ERRORS
from ddbmodels.core.keys import utcnow
from ddbmodels.patterns import time_series
from tracker.selectors.archives import archive_names

log = logging.getLogger(__name__)
# what reading the archive store may raise: a folder (OSError), a bad manifest (ValueError), S3
ARCHIVE_ERRORS: tuple[type[Exception], ...] = (OSError, ValueError, *AWS_ERRORS)


@capacity.access_pattern("admin.describe")
def app_tables() -> list[str]:
    """ListTables (free), keeping the names under the configured prefix."""
    prefix = connection.current().table_prefix
    return sorted(name for name in tables.list_table_names() if name.startswith(prefix))


def base_name(table: str) -> str:
    """``issues`` for ``<prefix>issues``; ``events`` for any events table (one policy for all periods)."""
    if events.parse_events_table_name(table) is not None:
        return "events"
    return table.removeprefix(connection.current().table_prefix)


@capacity.access_pattern("admin.describe")
def describe_app_table(table: str) -> dict[str, Any]:
    """DescribeTable (free) of one of the app's tables; Http404 for any other name."""
    description = None
    if table.startswith(connection.current().table_prefix) and table in app_tables():
        description = tables.describe_table(table)
    if description is None:
        raise Http404("No such DynamoDB table of this app.")
    return description


@dataclass(frozen=True)
class EventsState:
    period: str
    state: str  # hot (current/next) | cold (older) | future


def events_state(table: str) -> EventsState | None:
    parsed = events.parse_events_table_name(table)
    if parsed is None:
        return None
    kind, period, start = parsed
    now = utcnow()
    current = time_series.period_start(kind, now)
    following = time_series.period_shift(kind, now, 1)
    state = "hot" if start in (current, following) else "cold" if start < current else "future"
    return EventsState(period, state)


STATE_WORDS = {"hot": "hot: current or next period", "cold": "cold: an older period", "future": "a later period"}


def table_label(name: str) -> str:
    """A table as a form's choice names it: the app's tables plainly, an events table with its period and
    state, a table under the app's prefix that it does not define, and other apps' tables on the endpoint."""
    prefix = connection.current().table_prefix
    if name.startswith(prefix) and name.removeprefix(prefix) in connection.registered():
        return name
    parsed = events.parse_events_table_name(name)
    state = events_state(name)
    if parsed is not None and state is not None:
        kind, _, start = parsed
        past = start < time_series.period_shift(kind, utcnow(), -settings.EVENTS_RETENTION)
        words = "cold, past retention: the next archive run exports and drops it" if past else STATE_WORDS[state.state]
        return f"{name} — events of {state.period} ({words})"
    if name.startswith(prefix):
        return f"{name} — under this app's prefix, not one of its tables"
    return f"{name} — another app's table on this endpoint"


def archive_label(name: str) -> str:
    """An archived events table as the restore form names it."""
    parsed = events.parse_events_table_name(name.rsplit("/", 1)[-1])
    period = f"events of {parsed[1]}, " if parsed is not None else ""
    return f"{name} — {period}archived (its table was dropped)"


def _keys(schema: list[dict[str, Any]], types: dict[str, str]) -> list[str]:
    return [f"{k['AttributeName']} ({types.get(k['AttributeName'], '?')}, {k['KeyType']})" for k in schema]


def _index_rows(description: dict[str, Any], types: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for kind, key in (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes")):
        for index in description.get(key, []):
            projection = index.get("Projection", {})
            throughput = index.get("ProvisionedThroughput") or {}
            rows.append(
                {
                    "name": index["IndexName"],
                    "kind": kind,
                    "keys": _keys(index["KeySchema"], types),
                    "projection": projection.get("ProjectionType", ""),
                    "non_key": projection.get("NonKeyAttributes", []),
                    "status": index.get("IndexStatus", ""),
                    "items": index.get("ItemCount"),
                    "rcu": throughput.get("ReadCapacityUnits") or None,
                    "wcu": throughput.get("WriteCapacityUnits") or None,
                    "plan": _index_plan(index, throughput),
                }
            )
    return rows


def _index_plan(index: dict[str, Any], throughput: dict[str, Any]) -> partitions.Plan | None:
    """A provisioned GSI's own partitions (it has its own throughput); None for on-demand or an LSI."""
    rcu, wcu = throughput.get("ReadCapacityUnits") or 0, throughput.get("WriteCapacityUnits") or 0
    if not (rcu or wcu):
        return None
    return partitions.plan(rcu, wcu, partitions.size_gb_of(index))


@capacity.access_pattern("admin.describe")
def table_row(name: str) -> dict[str, Any] | None:
    """DescribeTable (free), flattened for the page; None when the table went away meanwhile."""
    description = tables.describe_table(name)
    if description is None:
        return None
    types = {a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]}
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    throughput = description.get("ProvisionedThroughput") or {}
    return {
        "name": name,
        "base": base_name(name),
        "status": description.get("TableStatus", ""),
        "keys": _keys(description["KeySchema"], types),
        "indexes": _index_rows(description, types),
        "items": description.get("ItemCount", 0),
        "bytes": description.get("TableSizeBytes", 0),
        "billing": billing,
        "rcu": throughput.get("ReadCapacityUnits") if billing == "PROVISIONED" else None,
        "wcu": throughput.get("WriteCapacityUnits") if billing == "PROVISIONED" else None,
        "events": events_state(name),
        "partitions": partitions.assess(description),
    }


def table_rows() -> list[dict[str, Any]]:
    """Every table of the app, described (ListTables + one DescribeTable each, all free)."""
    return [row for row in (table_row(name) for name in app_tables()) if row is not None]


def archived_tables() -> tuple[list[str], str]:
    """(names of the archived events tables, "") — or ([], why) when the archive store cannot be read.

    An archive outage must not hide the tables, so it is reported on the page instead of raised.
    """
    try:
        return archive_names(), ""
    except ARCHIVE_ERRORS as error:
        log.warning("archive store unavailable: %s", error)
        return [], f"The archive store could not be read: {error}"


def endpoint_tables(limit: int = 2000) -> list[str]:
    """Every table name on the endpoint (ListTables, free), at most ``limit``; [] when it cannot be listed."""
    try:
        return tables.list_table_names()[:limit]
    except AWS_ERRORS as error:
        log.warning("ListTables failed: %s", error)
        return []


def where() -> dict[str, str]:
    """The table prefix and the endpoint the app's tables are on ("AWS" when none is configured)."""
    settings = connection.current()
    return {"prefix": settings.table_prefix, "endpoint": settings.endpoint_url or "AWS"}
