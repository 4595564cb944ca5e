"""Items of any table of the app, for the item browser: a Query/Scan page, one item, where an item is.

The DynamoDB calls are ``ddbmodels.core.items`` (botocore's item format, any table); the
signed links are ``tracker.item_links``; the JSON shown and edited is ``tracker.item_json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import Http404

from ddbmodels.core import capacity, items
from tracker import item_json, item_links
from tracker.exceptions import BadCursor
from tracker.selectors.admin.tables import describe_app_table

if TYPE_CHECKING:  # a type only: ddbmodels.core.items reads the item (lint-imports skips type-only imports)
    from pynamodb.models import Model


@dataclass(frozen=True)
class Browsable:
    """A table (or one of its indexes) as the browse page queries it."""

    description: dict[str, Any]
    schema: item_json.KeySchema  # of the index when one is chosen, else of the table
    table_schema: item_json.KeySchema
    indexes: list[str]


def browsable(*, table: str, index: str | None) -> Browsable:
    """The table's description and key schemas (DescribeTable, free); Http404 for a table or index not the app's."""
    description = describe_app_table(table)
    schema = item_json.key_schema(description, index)
    if schema is None:
        raise Http404("No such index on this table.")
    indexes = [i["IndexName"] for i in description.get("GlobalSecondaryIndexes", [])]
    indexes += [i["IndexName"] for i in description.get("LocalSecondaryIndexes", [])]
    return Browsable(description, schema, item_json.table_key_schema(description), indexes)


@dataclass(frozen=True)
class BrowsePage:
    page: items.Page
    rcu: float  # what this page's read consumed


def browse_page(*, request: dict[str, Any], scan: bool, start: dict[str, Any] | None) -> BrowsePage:
    """One Query or Scan page of items.PAGE_SIZE (10) items — RCU per 4 KB read. InvalidInput when refused."""
    if start is not None:
        request = {**request, "ExclusiveStartKey": start}
    with capacity.measure() as meter:
        page = items.read_page(request, scan=scan)
    return BrowsePage(page, round(meter.rcu, 3))


@dataclass(frozen=True)
class LoadedItem:
    table: str
    schema: item_json.KeySchema
    key: dict[str, Any]
    item: dict[str, Any]
    version: str | None  # the table's version attribute, when its model has one

    @property
    def fingerprint(self) -> str:
        return item_json.fingerprint(self.item)


def item_load(*, table: str, token: str | None) -> LoadedItem:
    """The item a signed key names (GetItem, consistent — 1 RCU per 4 KB); BadCursor or Http404 otherwise."""
    schema = item_json.table_key_schema(describe_app_table(table))
    key = item_links.key_decode(token, table=table)
    if set(key) != set(schema.names):
        raise BadCursor("This item link does not match the table's key.")
    with capacity.measure():
        item = items.item_get(table, key)
    if item is None:
        raise Http404("No such item (deleted since?).")
    return LoadedItem(table, schema, key, item, items.version_attribute(table))


def field_names(*, table: str) -> dict[str, str]:
    """Stored (short) attribute name → the model's field name, for the table's registered model (no call)."""
    return items.field_names(table)


def item_address(item: Model) -> tuple[str, dict[str, Any]]:
    """(table, key) of one of the app's items: where the item browser finds it."""
    return items.item_key(item)
