"""Cache-aside helpers that survive a Redis outage: a miss, a log line, never a 500."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

log = logging.getLogger(__name__)
T = TypeVar("T")
_MISS = object()


def cached(
    key: str,
    timeout: int,
    load: Callable[[], T],
    *,
    dump: Callable[[T], Any],
    restore: Callable[[Any], T],
    keep: Callable[[T], bool] = lambda _: True,
) -> T:
    """Return ``restore(cache[key])``, or ``load()`` and store ``dump(value)`` under ``key`` if ``keep(value)``."""
    try:
        raw = cache.get(key, _MISS)
    except Exception:  # noqa: BLE001  (any Redis failure degrades to a miss)
        log.warning("cache get %s failed; reading DynamoDB", key, exc_info=True)
        raw = _MISS
    if raw is not _MISS:
        return restore(raw)
    value = load()
    if keep(value):
        store(key, dump(value), timeout)
    return value


def store(key: str, value: Any, timeout: int) -> None:
    """Put ``value`` under ``key``; a Redis failure is logged, never raised (readers fall back to DynamoDB)."""
    try:
        cache.set(key, value, timeout)
    except Exception:  # noqa: BLE001
        log.warning("cache set %s failed", key, exc_info=True)


def invalidate(*keys: str) -> None:
    """Drop ``keys`` so the next read goes to DynamoDB."""
    try:
        cache.delete_many(list(keys))
    except Exception:  # noqa: BLE001
        log.warning("cache delete %s failed", keys, exc_info=True)
