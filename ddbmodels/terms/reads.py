"""Reading label and word entries: one Query of the team's partition, a sort-key prefix, one page."""

from __future__ import annotations

from typing import Any

from ddbmodels.core import capacity
from ddbmodels.patterns.pagination import KeyPage, keyed_page
from ddbmodels.terms.model import KEY_ATTRIBUTES, TermEntry


def _prefix_page(tenant: str, prefix: str, *, size: int, start: dict[str, Any] | None, backwards: bool) -> KeyPage:
    connection = TermEntry._get_connection()

    def query(exclusive_start_key: dict[str, Any] | None, forward: bool, limit: int) -> dict[str, Any]:
        return connection.query(
            tenant,
            range_key_condition=TermEntry.sort.startswith(prefix),
            exclusive_start_key=exclusive_start_key,
            scan_index_forward=forward,
            limit=limit,
        )

    return keyed_page(query, key_names=KEY_ATTRIBUTES, size=size, start=start, backwards=backwards)


@capacity.access_pattern("terms.page")
def entry_page(
    *, tenant: str, prefix: str, size: int = 25, start: dict[str, Any] | None = None, backwards: bool = False
) -> KeyPage:
    """Query tn=tenant, begins_with(s, prefix), descending, Limit size+1 — ≈ 0.5–1 RCU (26 entries ≈ 4–8 KB).

    ``prefix`` comes from ``label_prefix`` or ``word_prefix``; the page's items are raw entries
    (``issue_of(item["s"]["S"])`` names the issue each points at).
    """
    return _prefix_page(tenant, prefix, size=size, start=start, backwards=backwards)
