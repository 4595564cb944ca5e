"""Hot partition keys as the admin's Hot keys page shows them: the sampled counts of ``tracker.hot_key_stats``."""

from __future__ import annotations

from tracker.hot_key_stats import HOT_MIN_REQUESTS, HOT_SHARE, TableRow, window

__all__ = ["HOT_MIN_REQUESTS", "HOT_SHARE", "TableRow", "hot_keys_window"]


def hot_keys_window(minutes: int) -> list[TableRow]:
    """Every table and index touched in the last ``minutes`` whole minutes, busiest first (Redis reads, no DynamoDB)."""
    return window(minutes)
