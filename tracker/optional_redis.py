"""Redis where it is only an optimisation: short timeouts, errors as misses, a pause after a failure.

The cache (hot DynamoDB reads) and the capacity figures use Redis when it answers and do without
it when it does not: every socket has a connect and a read timeout (``REDIS_TIMEOUT_SECONDS``),
and after one failure this process leaves Redis alone for ``REDIS_PAUSE_SECONDS``, so a frozen
Redis costs one request one timeout instead of every request several. A page then reads
DynamoDB directly; the failure is logged once per pause.

Job locks, the run history's writes and Celery's broker are not optional: they raise (with the
same timeouts) and their callers say so.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

import redis
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)
_lock = threading.Lock()
_paused_until = 0.0


def paused() -> bool:
    """True while this process leaves Redis alone after a failure."""
    return time.monotonic() < _paused_until


def failed(what: str, error: BaseException) -> None:
    """Note that Redis failed doing ``what``: log it (once per pause) and pause."""
    global _paused_until
    with _lock:
        first = not paused()
        _paused_until = time.monotonic() + settings.REDIS_PAUSE_SECONDS
    if first:
        log.warning("Redis failed (%s): %s; doing without it for %s s", what, error, settings.REDIS_PAUSE_SECONDS)


def resume() -> None:
    """Use Redis again at once (tests; an operator who fixed it need not wait)."""
    global _paused_until
    _paused_until = 0.0


def socket_options() -> dict[str, float]:
    """The connect and read timeouts every Redis client of the project uses."""
    timeout = settings.REDIS_TIMEOUT_SECONDS
    return {"socket_connect_timeout": timeout, "socket_timeout": timeout}


_clients: dict[str, redis.Redis] = {}


def client(url: str | None = None) -> redis.Redis:
    """A Redis client for ``url`` (REDIS_URL by default) with the project's timeouts, one per URL."""
    url = url or settings.REDIS_URL
    with _lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(url, **socket_options())  # type: ignore[arg-type]
        return _clients[url]


class JSONSerializer:
    """The cache's values as JSON, never pickle: whoever can write to Redis cannot make a reader run code.

    Django's own RedisSerializer unpickles what it reads. Integers stay plain Redis integers (as
    Django stores them) so ``incr``/``decr`` stay atomic; anything else is JSON (a value JSON
    cannot hold is a TypeError at ``set``, never silently changed). Bytes that are not JSON — a
    pickle written straight into Redis, say — raise ValueError, which the cache reads as a miss.
    """

    def dumps(self, obj: Any) -> int | bytes:
        if type(obj) is int:
            return obj
        return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()

    def loads(self, data: bytes) -> Any:
        try:
            return int(data)
        except ValueError:
            return json.loads(data)


class OptionalRedisCache(RedisCache):
    """Django's RedisCache, except that Redis failing is a miss (reads) or a no-op (writes).

    A stored value that is not JSON (``JSONSerializer``) is also a miss, logged once per read.
    """

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        if paused():
            return default
        try:
            return super().get(key, default, version)
        except redis.exceptions.RedisError as error:
            failed("cache get", error)
            return default
        except ValueError:  # not JSON (UnicodeDecodeError, JSONDecodeError): never unpickled
            log.warning("cache entry %s is not JSON; read as a miss", key)
            return default

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        if paused():
            return {}
        try:
            return super().get_many(keys, version)
        except redis.exceptions.RedisError as error:
            failed("cache get_many", error)
            return {}
        except ValueError:
            log.warning("a cache entry read by get_many is not JSON; read as misses")
            return {}

    def has_key(self, key: Any, version: int | None = None) -> bool:
        if paused():
            return False
        try:
            return super().has_key(key, version)
        except redis.exceptions.RedisError as error:
            failed("cache has_key", error)
            return False

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        if paused():
            return
        try:
            super().set(key, value, timeout, version)
        except redis.exceptions.RedisError as error:
            failed("cache set", error)

    def set_many(self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[Any]:
        if paused():
            return list(data)
        try:
            return super().set_many(data, timeout, version)
        except redis.exceptions.RedisError as error:
            failed("cache set_many", error)
            return list(data)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        if paused():
            return False
        try:
            return super().add(key, value, timeout, version)
        except redis.exceptions.RedisError as error:
            failed("cache add", error)
            return False

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        if paused():
            return False
        try:
            return super().touch(key, timeout, version)
        except redis.exceptions.RedisError as error:
            failed("cache touch", error)
            return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        # A failed delete (an invalidation after a write) is not served while Redis is paused; if
        # Redis comes back with the entry still in it, it is stale until its TIMEOUT at most.
        if paused():
            return False
        try:
            return super().delete(key, version)
        except redis.exceptions.RedisError as error:
            failed("cache delete", error)
            return False

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        if paused():
            return
        try:
            super().delete_many(keys, version)
        except redis.exceptions.RedisError as error:
            failed("cache delete_many", error)
