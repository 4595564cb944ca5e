"""Exact-size pages of one item collection, forwards and backwards, resumable by sort key.

A Query with a FilterExpression and ``Limit`` can return short or empty pages, and DynamoDB's
LastEvaluatedKey points at the last item *read*, not the last one *shown*. So a page here is
built from as many requests as it takes to collect ``size + 1`` matching items, and the cursor
is the sort key of the last item shown: the next page starts right after it, the previous page
is the same Query in the other direction starting right before the first one.

Cost: RCU = (bytes read ÷ 4 KB) × 0.5 (eventually consistent), rounded up per request. With
no filter that is about (size + 1) items per page; a filter reads what it discards too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pynamodb.expressions.condition import Condition
from pynamodb.models import Model

T = TypeVar("T", bound=Model)

NEWER = "newer"  # towards larger sort keys
OLDER = "older"  # towards smaller sort keys


@dataclass(frozen=True)
class Page(Generic[T]):
    """Items in display order (descending), and the sort keys to continue from."""

    items: list[T]
    older_than: int | None  # set when there is a next (older) page
    newer_than: int | None  # set when there is a previous (newer) page


def newest_first_page(
    model: type[T],
    hash_key: object,
    *,
    range_key_condition_for: Callable[[int | None, str], Condition | None],
    filter_condition: Condition | None = None,
    size: int = 25,
    after: int | None = None,
    direction: str = OLDER,
) -> Page[T]:
    """Query PK=hash_key, SK descending (or ascending for NEWER), until size + 1 match — ≈ 0.5 RCU per 4 KB read.

    ``after`` is the sort key to continue from (exclusive); ``range_key_condition_for(after,
    direction)`` returns the sort-key condition for that starting point.
    """
    range_name = model._range_keyname
    assert range_name is not None
    forward = direction == NEWER
    results = model.query(
        hash_key,
        range_key_condition=range_key_condition_for(after, direction),
        filter_condition=filter_condition,
        scan_index_forward=forward,
        limit=size + 1,
        page_size=size + 1,
    )
    items: list[Any] = list(results)
    more = len(items) > size
    items = items[:size]
    if forward:
        items.reverse()
    if not items:
        return Page(items=[], older_than=None, newer_than=None)
    first = int(getattr(items[0], range_name))
    last = int(getattr(items[-1], range_name))
    if forward:
        # Came from an older page: there is always an older page; newer only if more.
        return Page(items=items, older_than=last, newer_than=first if more else None)
    return Page(
        items=items,
        older_than=last if more else None,
        newer_than=first if after is not None else None,
    )


@dataclass(frozen=True)
class KeyPage:
    """Raw items of one index or key-range page in display order, and the keys to continue from.

    ``next_key`` continues after the last item shown (set when there is more), ``prev_key``
    goes back before the first one (set when this page did not start at the beginning).
    """

    items: list[dict[str, Any]]
    next_key: dict[str, Any] | None
    prev_key: dict[str, Any] | None


def item_key(item: dict[str, Any], key_names: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """The ExclusiveStartKey that resumes right after ``item``: its table and index key attributes."""
    return {name: item[name] for name in key_names}


def keyed_page(
    query: Callable[[dict[str, Any] | None, bool, int], dict[str, Any]],
    *,
    key_names: tuple[str, ...] | list[str],
    size: int,
    start: dict[str, Any] | None = None,
    backwards: bool = False,
    ascending: bool = False,
) -> KeyPage:
    """One Query of ``size + 1`` items without a filter — one request, ≈ 0.5 RCU per 4 KB read.

    ``query(exclusive_start_key, scan_index_forward, limit)`` makes the one low-level Query
    (an index or a key range: every item it returns is shown, so one request fills the page,
    as long as the page is under DynamoDB's 1 MB a response; a Query with a FilterExpression is
    repeated from its LastEvaluatedKey until the page is full, reading what it discards — the
    caller states the bound). ``key_names`` are the attributes
    of a key of that index (the table's keys, and the index's). The display order is descending
    (``ascending`` flips it); ``backwards`` reads the page before ``start`` (a "previous" link)
    by running the Query the other way from it.
    """
    forward = ascending != backwards
    items: list[dict[str, Any]] = []
    resume = start
    while True:  # one request unless the Query filters (then: until the page is full or the range ends)
        response = query(resume, forward, size + 1 - len(items))
        items.extend(response.get("Items", []))
        resume = response.get("LastEvaluatedKey")
        if len(items) > size or not resume:
            break
    more = len(items) > size
    items = items[:size]
    if backwards:
        items.reverse()
    if not items:
        return KeyPage(items=[], next_key=None, prev_key=None)
    first, last = item_key(items[0], key_names), item_key(items[-1], key_names)
    if backwards:  # came from a later page: there is always a next one; a previous one only if more
        return KeyPage(items=items, next_key=last, prev_key=first if more else None)
    return KeyPage(items=items, next_key=last if more else None, prev_key=first if start is not None else None)
