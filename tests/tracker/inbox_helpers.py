"""Helpers for tests that count a page's DynamoDB calls: the header's unread count set apart."""

from __future__ import annotations

from collections import Counter

from ddbmodels.core import capacity

HEADER_PATTERNS = {"inbox.unread": "GetItem"}  # the header's count: one GetItem of the inbox head (0.5 RCU)


def without_header(meter: capacity.CapacityMeter) -> Counter[str]:
    """The calls by operation, less the header's unread count (read on a cold cache, 0.5 RCU)."""
    calls = Counter(meter.by_operation)
    for pattern, operation in HEADER_PATTERNS.items():
        totals = meter.by_pattern.get(pattern)
        if totals is not None:
            calls[operation] -= totals.requests
    return +calls  # drops the operations left at zero
