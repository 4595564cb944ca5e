"""Redis: its address and timeouts, the cache (hot DynamoDB reads), cached project lifetimes."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Redis: the cache (hot DynamoDB reads) and Celery's broker
# ---------------------------------------------------------------------------------------------
REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6380/0")
# Seconds any Redis client (cache, capacity figures, job locks, Celery publishing) waits to
# connect or for an answer; a frozen Redis then costs a page one timeout, not a hang.
REDIS_TIMEOUT_SECONDS = env.float("REDIS_TIMEOUT_SECONDS", default=1.0)
# After a Redis failure, the cache and the capacity figures leave Redis alone this long (per
# process) and pages read DynamoDB directly (tracker.optional_redis).
REDIS_PAUSE_SECONDS = env.float("REDIS_PAUSE_SECONDS", default=10.0)
CACHES = {
    "default": {
        "BACKEND": "tracker.optional_redis.OptionalRedisCache",  # Redis errors are misses, never 500s
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "tracker",
        "TIMEOUT": 300,
        "OPTIONS": {
            "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
            "socket_timeout": REDIS_TIMEOUT_SECONDS,
            # JSON, not Django's default pickle: a writable Redis must not be able to run code
            "serializer": "tracker.optional_redis.JSONSerializer",
        },
    }
}
# Seconds a cached project (metadata, list) lives; every write invalidates it sooner.
PROJECT_CACHE_SECONDS = env.int("PROJECT_CACHE_SECONDS", default=300)
