"""Reading comments: one comment, or one page of an issue's comments (oldest first) at index cost."""

from __future__ import annotations

from dataclasses import dataclass

from pynamodb.exceptions import DoesNotExist

from ddbmodels.comments.model import PAGE_SIZE, CommentItem
from ddbmodels.core import capacity

PAGE_SIZE_MAX = 100


@dataclass(frozen=True)
class CommentPage:
    """Comments oldest first, and the sort keys to continue from in either direction."""

    comments: list[CommentItem]
    older_than: str | None  # set when older comments exist: the key of the first one shown
    newer_than: str | None  # set when newer comments exist: the key of the last one shown


@capacity.access_pattern("comments.get")
def comment_get(*, stream: str, key: str, consistent: bool = False) -> CommentItem | None:
    """GetItem — 0.5 RCU per started 4 KB (1 RCU consistent). None when there is no such comment."""
    try:
        return CommentItem.get(stream, key, consistent_read=consistent)
    except DoesNotExist:
        return None


@capacity.access_pattern("comments.page")
def comment_page(
    *,
    stream: str,
    size: int = PAGE_SIZE,
    after: str | None = None,
    before: str | None = None,
    latest: bool = False,
) -> CommentPage:
    """Query PK = issue, Limit size+1 — 0.5 RCU per started 4 KB read (21 comments of ~300 B: 1 RCU).

    One request, no filter: every item read is shown but the one that only tells whether more
    exist. The first page is the oldest comments (SK ascending); ``after`` (a sort key) continues
    with the comments newer than it, ``before`` with the ones older than it (SK descending from
    it, shown oldest first), ``latest`` is the newest page (SK descending from the end).
    """
    if not 1 <= size <= PAGE_SIZE_MAX:
        raise ValueError(f"size must be 1..{PAGE_SIZE_MAX}, got {size}")
    if (after is not None) + (before is not None) + bool(latest) > 1:
        raise ValueError("after, before and latest are exclusive")
    backwards = before is not None or latest
    condition = None
    if after is not None:
        condition = CommentItem.key > after
    elif before is not None:
        condition = CommentItem.key < before
    items = list(
        CommentItem.query(
            stream,
            range_key_condition=condition,
            scan_index_forward=not backwards,
            limit=size + 1,
            page_size=size + 1,
        )
    )
    more = len(items) > size
    items = items[:size]
    if backwards:
        items.reverse()
    if not items:
        return CommentPage(comments=[], older_than=None, newer_than=None)
    first, last = items[0].key, items[-1].key
    if backwards:  # read towards the oldest: older ones exist if more; newer ones unless this is the end
        return CommentPage(comments=items, older_than=first if more else None, newer_than=last if before else None)
    return CommentPage(comments=items, older_than=first if after else None, newer_than=last if more else None)


@capacity.access_pattern("comments.count")
def comment_count(*, stream: str) -> int:
    """Query PK = issue, Select COUNT, every page — 0.5 RCU per started 4 KB read (COUNT reads what it counts).

    For the page that asks before an issue is deleted: how many comments go with it.
    """
    return CommentItem.count(stream)
