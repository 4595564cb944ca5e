"""The admin's Tables page: every DynamoDB table of the app (name under the prefix), described."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from django.contrib import admin
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, PermissionsMixin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from ddbmodels import events
from ddbmodels.core import capacity, connection
from ddbmodels.patterns import time_series
from tracker.services import maintenance

log = logging.getLogger(__name__)


def can_change(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and holders of tracker.change_tenant may change DynamoDB data; other staff read."""
    if not isinstance(user, PermissionsMixin) or not user.is_active:
        return False
    return user.is_superuser or user.has_perm("tracker.change_tenant")


@capacity.access_pattern("admin.describe")
def app_tables() -> list[str]:
    """ListTables (free), keeping the names under the configured prefix."""
    client, prefix = connection.client(), connection.current().table_prefix
    names: list[str] = []
    request: dict[str, Any] = {}
    while True:
        page = client.list_tables(**request)
        names += [n for n in page.get("TableNames", []) if n.startswith(prefix)]
        if "LastEvaluatedTableName" not in page:
            return sorted(names)
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def base_name(table: str) -> str:
    """``issues`` for ``<prefix>issues``; ``events`` for any events table (one policy for all periods)."""
    if events.parse_events_table_name(table) is not None:
        return "events"
    return table.removeprefix(connection.current().table_prefix)


@capacity.access_pattern("admin.describe")
def describe_app_table(table: str) -> dict[str, Any]:
    """DescribeTable (free) of one of the app's tables; Http404 for any other name."""
    if not table.startswith(connection.current().table_prefix) or table not in app_tables():
        raise Http404("No such DynamoDB table of this app.")
    description: dict[str, Any] = connection.client().describe_table(TableName=table)["Table"]
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
    now = timezone.now()
    current = time_series.period_start(kind, now)
    following = time_series.period_shift(kind, now, 1)
    state = "hot" if start in (current, following) else "cold" if start < current else "future"
    return EventsState(period, state)


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
                }
            )
    return rows


@capacity.access_pattern("admin.describe")
def table_row(name: str) -> dict[str, Any]:
    """DescribeTable (free), flattened for the page."""
    description = connection.client().describe_table(TableName=name)["Table"]
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
    }


def tables_view(request: HttpRequest) -> HttpResponse:
    rows = [table_row(name) for name in app_tables()]
    try:
        archived, archive_error = maintenance.archives(), ""
    except (OSError, ValueError, BotoCoreError, ClientError) as error:  # an archive outage must not hide the tables
        log.warning("archive store unavailable: %s", error)
        archived, archive_error = [], f"The archive store could not be read: {error}"
    context = {
        **admin.site.each_context(request),
        "title": "DynamoDB tables",
        "rows": rows,
        "archived": archived,
        "archive_error": archive_error,
        "prefix": connection.current().table_prefix,
        "endpoint": connection.current().endpoint_url or "AWS",
        "can_change": can_change(request.user),
    }
    return render(request, "admin/ddb/tables.html", context)
