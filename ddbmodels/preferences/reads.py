"""Reading preferences: a person's views, the team's shared views (one Query each), one view, the settings."""

from __future__ import annotations

from typing import Any

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.core.keys import parse_time_key
from ddbmodels.preferences.model import (
    NOTIFY_SORT,
    VIEW_PREFIX,
    VIEWS_READ,
    NotifySetting,
    SavedView,
    TeamNotify,
    person_key,
    team_key,
    view_sort,
)


def _table() -> str:
    return connection.table_name("preferences")


def view_of(item: dict[str, Any]) -> SavedView:
    """A view from its stored item (DynamoDB JSON)."""
    created = item.get("ca", {}).get("S")
    return SavedView(
        id=item["s"]["S"].removeprefix(VIEW_PREFIX),
        name=item.get("nm", {}).get("S", ""),
        query=item.get("q", {}).get("S", ""),
        project=item.get("pj", {}).get("S"),
        author=item.get("by", {}).get("S", ""),
        shared=bool(item.get("sh", {}).get("BOOL", False)),
        version=int(item.get("v", {}).get("N", "0")),
        created_at=parse_time_key(created) if created else None,
    )


def _views(partition: str, *, consistent: bool = False) -> list[SavedView]:
    request: dict[str, Any] = {
        "KeyConditionExpression": "pk = :p AND s BETWEEN :a AND :b",
        "ExpressionAttributeValues": {":p": {"S": partition}, ":a": {"S": VIEW_PREFIX}, ":b": {"S": VIEW_PREFIX + "~"}},
        "ConsistentRead": consistent,
    }
    return [view_of(item) for page in query_pages(_table(), limit=VIEWS_READ, **request) for item in page]


@capacity.access_pattern("preferences.views_mine")
def views_mine(tenant: str, username: str) -> list[SavedView]:
    """Query pk = the person's partition, s BETWEEN "v#" AND "v#~", ≤ 120 — 0.5 RCU per 4 KB (≈ 25 views):
    one request, ≤ 2 RCU for the 100 views a person may keep (see ``model``)."""
    return _views(person_key(tenant, username))


@capacity.access_pattern("preferences.views_shared")
def views_shared(tenant: str, *, consistent: bool = False) -> list[SavedView]:
    """Query pk = the team partition, s BETWEEN "v#" AND "v#~", ≤ 120 — 0.5 RCU per 4 KB (≈ 25 views), 1 RCU
    consistent: one request, ≤ 2 RCU for the 100 views a team may share (see ``model``)."""
    return _views(team_key(tenant), consistent=consistent)


@capacity.access_pattern("preferences.view_get")
def view_get(tenant: str, username: str, view_id: str) -> SavedView | None:
    """A view ``username`` may open: their own (GetItem, consistent, 1 RCU), else the team's shared copy (1 RCU).

    None when neither exists: another person's view that is not shared is as missing as one never saved.
    """
    client = connection.client()
    for partition in (person_key(tenant, username), team_key(tenant)):
        answer = client.get_item(
            TableName=_table(),
            Key={"pk": {"S": partition}, "s": {"S": view_sort(view_id)}},
            ConsistentRead=True,
            ReturnConsumedCapacity="TOTAL",
        )
        if "Item" in answer:
            return view_of(answer["Item"])
    return None


def settings_of(item: dict[str, Any] | None) -> dict[str, NotifySetting]:
    """username → setting, from the team's settings item (DynamoDB JSON; None: nobody set anything)."""
    people = (item or {}).get("m", {}).get("M", {})
    return {
        name: NotifySetting(
            level=entry["M"].get("l", {}).get("S", NotifySetting.level),
            email=bool(entry["M"].get("e", {}).get("BOOL", True)),
            version=int(entry["M"].get("v", {}).get("N", "0")),
        )
        for name, entry in people.items()
    }


def team_notify_of(item: dict[str, Any] | None) -> TeamNotify:
    """The settings and their generation, from the team's settings item (None: nobody set anything)."""
    return TeamNotify(people=settings_of(item), generation=int((item or {}).get("g", {}).get("N", "0")))


@capacity.access_pattern("preferences.notify_get")
def notify_team(tenant: str, *, consistent: bool = False) -> TeamNotify:
    """GetItem pk = "<team>#t", s = "n" — 0.5 RCU (1 consistent) per 4 KB (≈ 40 B a person): the settings.

    People not in it have the default (participating, e-mail on, version 0); with the item's
    generation, which each change raises (the site's cache keeps the newest: ``selectors.preferences``).
    """
    answer = connection.client().get_item(
        TableName=_table(),
        Key={"pk": {"S": team_key(tenant)}, "s": {"S": NOTIFY_SORT}},
        ConsistentRead=consistent,
        ReturnConsumedCapacity="TOTAL",
    )
    return team_notify_of(answer.get("Item"))


@capacity.access_pattern("preferences.notify_get")
def notify_settings(tenant: str, *, consistent: bool = False) -> dict[str, NotifySetting]:
    """GetItem pk = "<team>#t", s = "n" — 0.5 RCU (1 consistent) per 4 KB: username → setting (``notify_team``)."""
    return notify_team(tenant, consistent=consistent).people
