"""Rolling capacity figures in Redis: by page, by job and by access pattern.

Every request (``tracker.middleware.CapacityMiddleware``) and every maintenance run
(``tracker.jobs.run_job``) ends by adding its meter to small hashes of the day,
``tracker:ddbcap:<kind>:<YYYY-MM-DD>`` with fields ``<label>:<metric>``, kept ``KEEP_DAYS`` days:

- ``page``: label = URL name; count = requests served;
- ``job``: label = job name; count = runs (whatever the Celery result backend is);
- ``pattern``: label = access pattern (``ddbmodels.capacity.access_pattern``); count = times
  the pattern was entered, so the page can show capacity *per call* next to its theory;
- ``token``: label = an API token, ``<team>#<username>#<hint>``; count = calls it made (a request's
  ``also``: the same meter as its ``page`` row, whose label for the API is ``api:<operation>``).

One pipeline of HINCRBYFLOAT/HINCRBY + EXPIRE per request or run. A Redis outage loses figures,
never a request or a job: errors are logged, not raised, and after one the process skips Redis
for a while (``tracker.optional_redis``), so a frozen Redis does not add a timeout to every page.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import redis
from django.conf import settings

from ddbmodels.core import hot_keys
from ddbmodels.core.capacity import CapacityMeter
from ddbmodels.core.keys import utcnow
from tracker import optional_redis

log = logging.getLogger(__name__)
KEEP_DAYS = 7
KEY_PREFIX = "tracker:ddbcap:"
Kind = Literal["page", "job", "pattern", "token"]
KINDS: tuple[Kind, ...] = ("page", "job", "pattern", "token")


def redis_client() -> redis.Redis:
    """REDIS_URL's client, with the project's socket timeouts (``tracker.optional_redis``)."""
    return optional_redis.client(settings.REDIS_URL)


def day_key(kind: Kind, day: datetime) -> str:
    return f"{KEY_PREFIX}{kind}:{day:%Y-%m-%d}"


@dataclass
class Row:
    """One label's totals: capacity units, DynamoDB requests, and how many times it counted."""

    label: str
    rcu: float = 0.0
    wcu: float = 0.0
    requests: int = 0
    count: int = 0

    @property
    def units(self) -> float:
        return round(self.rcu + self.wcu, 3)

    @property
    def per_call(self) -> float | None:
        """Capacity units per count (per request, run or pattern call); None before the first."""
        return round(self.units / self.count, 3) if self.count else None


def _add(pipe: redis.client.Pipeline, key: str, label: str, rcu: float, wcu: float, requests: int, count: int) -> None:
    if rcu:
        pipe.hincrbyfloat(key, f"{label}:rcu", rcu)
    if wcu:
        pipe.hincrbyfloat(key, f"{label}:wcu", wcu)
    if requests:
        pipe.hincrby(key, f"{label}:requests", requests)
    if count:
        pipe.hincrby(key, f"{label}:count", count)


def record(kind: Kind, label: str, meter: CapacityMeter, *, also: Mapping[Kind, str] | None = None) -> None:
    """Add ``meter`` under ``label`` (kind page or job), and its per-pattern totals under pattern; ``also``: the
    same meter under other kinds' labels too (an API call's token), in the same pipeline."""
    hot_keys.flush()  # this process's sampled partition keys, when the flush interval has passed
    if optional_redis.paused():
        return
    now = utcnow()
    ttl = (KEEP_DAYS + 1) * 86400
    try:
        pipe = redis_client().pipeline(transaction=False)
        key = day_key(kind, now)
        _add(pipe, key, label, meter.rcu, meter.wcu, meter.requests, 1)
        pipe.expire(key, ttl)
        for other_kind, other_label in (also or {}).items():
            other = day_key(other_kind, now)
            _add(pipe, other, other_label, meter.rcu, meter.wcu, meter.requests, 1)
            pipe.expire(other, ttl)
        if meter.by_pattern:
            patterns = day_key("pattern", now)
            for name, totals in meter.by_pattern.items():
                _add(pipe, patterns, name, totals.rcu, totals.wcu, totals.requests, totals.calls)
            pipe.expire(patterns, ttl)
        pipe.execute()
    except redis.exceptions.RedisError as error:
        optional_redis.failed(f"capacity of {kind} {label} not recorded", error)


def totals(kind: Kind, *, days: int = KEEP_DAYS) -> list[Row]:
    """Totals by label over the last ``days`` days, most capacity first ([] when Redis is down)."""
    now = utcnow()
    rows: dict[str, Row] = {}
    if optional_redis.paused():
        return []
    try:
        client = redis_client()
        pipe = client.pipeline(transaction=False)
        for back in range(days):
            pipe.hgetall(day_key(kind, now - timedelta(days=back)))
        for day in pipe.execute():
            for raw_field, raw_value in day.items():
                label, _, metric = raw_field.decode().rpartition(":")
                row = rows.setdefault(label, Row(label=label))
                value = float(raw_value)
                if metric == "rcu":
                    row.rcu += value
                elif metric == "wcu":
                    row.wcu += value
                elif metric == "requests":
                    row.requests += int(value)
                elif metric == "count":
                    row.count += int(value)
    except redis.exceptions.RedisError as error:
        optional_redis.failed(f"{kind} capacity unavailable", error)
    return sorted(rows.values(), key=lambda r: (-r.units, r.label))
