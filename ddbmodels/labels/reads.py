"""Reading label entries (one Query of one label's partition, a sort-key prefix, one page) and the registry."""

from __future__ import annotations

from typing import Any

from ddbmodels.core import capacity, connection
from ddbmodels.core.items import query_pages
from ddbmodels.labels.model import KEY_ATTRIBUTES, LabelEntry, label_key
from ddbmodels.patterns.pagination import KeyPage, keyed_page

PREFIX_END = "\U0010ffff"  # sorts after every character an entry's sort key holds


@capacity.access_pattern("labels.page")
def entry_page(
    *,
    tenant: str,
    label: str,
    prefix: str,
    size: int = 25,
    start: dict[str, Any] | None = None,
    backwards: bool = False,
) -> KeyPage:
    """Query lk = ``<team>#<label>``, s BETWEEN prefix AND prefix+U+10FFFF, desc, Limit size+1 — ≈ 0.5–1 RCU.

    ``prefix`` comes from ``label_prefix``; the page's items are raw entries (``issue_of(item["s"]["S"])``
    names the issue each points at).
    """
    model_connection = LabelEntry._get_connection()
    hash_value = label_key(tenant, label)

    def query(exclusive_start_key: dict[str, Any] | None, forward: bool, limit: int) -> dict[str, Any]:
        return model_connection.query(
            hash_value,
            # BETWEEN prefix AND prefix + the highest code point: the same items as begins_with, one
            # index seek on DynamoDB either way; DynamoDB Local answers begins_with by walking the partition.
            range_key_condition=LabelEntry.sort.between(prefix, prefix + PREFIX_END),
            exclusive_start_key=exclusive_start_key,
            scan_index_forward=forward,
            limit=limit,
        )

    return keyed_page(query, key_names=KEY_ATTRIBUTES, size=size, start=start, backwards=backwards)


@capacity.access_pattern("labels.registry")
def team_labels(tenant: str, *, consistent: bool = True) -> list[str]:
    """Query lk = the team (its registry items) — 1 RCU per 4 KB (a few bytes a label): every label the team used."""
    request: dict[str, Any] = {
        "KeyConditionExpression": "lk = :t",
        "ExpressionAttributeValues": {":t": {"S": tenant}},
        "ConsistentRead": consistent,
    }
    return [item["s"]["S"] for page in query_pages(connection.table_name("labels"), **request) for item in page]
