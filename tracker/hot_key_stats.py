"""Hot partition keys in Redis over a sliding window: per-minute sorted sets, read by the last N minutes.

``ddbmodels.core.hot_keys`` counts, in each process, the partition keys its DynamoDB calls
touched (sampled, bounded). Its sink here ships a batch to Redis: for the current minute,

- ``tracker:hotkeys:<YYYYMMDDHHMM>:<metric>`` — a sorted set per metric (requests, rcu, wcu),
  member ``<table>\\t<index>\\t<key>``, ZINCRBY'd, trimmed to its ``KEEP_PER_MINUTE`` biggest;
- ``tracker:hotkeys:<YYYYMMDDHHMM>:tables`` — a hash of the whole table's (or index's) totals,
  field ``<table>\\t<index>\\t<metric>``, so a key's share is of all its table's traffic.

Every key lives ``WINDOW_MINUTES`` + 2 minutes. Reading the last N minutes sums N minutes' sets
(one pipeline). Redis is optional: a failure drops the batch or reads as no figures, and pauses
Redis for the process (``tracker.optional_redis``); it never fails a request or a job.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import redis
from celery.signals import task_postrun
from django.conf import settings

from ddbmodels.core import hot_keys
from ddbmodels.core.keys import utcnow
from tracker import optional_redis

KEY_PREFIX = "tracker:hotkeys:"
METRICS = ("requests", "rcu", "wcu")
WINDOW_MINUTES = 15
KEEP_PER_MINUTE = 500
HOT_SHARE = 0.25  # a key taking more than this of its table's requests or capacity …
HOT_MIN_REQUESTS = 20  # … with at least this many requests in the window (a handful is no load)
SEP = "\t"


def minute_key(at: datetime, metric: str) -> str:
    return f"{KEY_PREFIX}{at:%Y%m%d%H%M}:{metric}"


def ship(batch: hot_keys.Batch) -> None:
    """The sink: add a process's counted batch to the current minute (dropped when Redis fails)."""
    if optional_redis.paused():
        return
    now = utcnow()
    ttl = (WINDOW_MINUTES + 2) * 60
    try:
        pipe = optional_redis.client(settings.REDIS_URL).pipeline(transaction=False)
        for metric in METRICS:
            key = minute_key(now, metric)
            for touch, figures in batch.keys.items():
                value = getattr(figures, metric)
                if value:
                    pipe.zincrby(key, value, SEP.join((touch.table, touch.index, touch.key)))
            pipe.zremrangebyrank(key, 0, -(KEEP_PER_MINUTE + 1))
            pipe.expire(key, ttl)
        tables = minute_key(now, "tables")
        for (table, index), figures in batch.tables.items():
            for metric in METRICS:
                value = getattr(figures, metric)
                if value:
                    pipe.hincrbyfloat(tables, SEP.join((table, index, metric)), value)
        pipe.expire(tables, ttl)
        pipe.execute()
    except redis.exceptions.RedisError as error:
        optional_redis.failed("hot keys not recorded", error)


def install() -> None:
    """Point ddbmodels' hot-key counter at the settings and at Redis (the app's ``ready``)."""
    hot_keys.configure(
        sample_rate=settings.DYNAMODB_HOT_KEYS_SAMPLE_RATE,
        flush_seconds=settings.DYNAMODB_HOT_KEYS_FLUSH_SECONDS,
        sink=ship,
    )
    # Web requests and jobs flush through capacity_stats.record; every other Celery task (inbox
    # fan-out, count refreshes) flushes when it ends, so a worker's keys reach the page too.
    task_postrun.connect(_flush_after_task, weak=False, dispatch_uid="tracker.hot_key_stats.flush")


def _flush_after_task(**_: Any) -> None:
    hot_keys.flush()  # only when the flush interval has passed: cheap after every task


@dataclass
class KeyRow:
    """One partition key over the window: estimated requests and capacity, and its share of its table's."""

    key: str
    requests: float = 0.0
    rcu: float = 0.0
    wcu: float = 0.0
    request_share: float = 0.0
    unit_share: float = 0.0

    @property
    def units(self) -> float:
        return self.rcu + self.wcu

    @property
    def request_percent(self) -> float:
        return round(self.request_share * 100, 1)

    @property
    def unit_percent(self) -> float:
        return round(self.unit_share * 100, 1)

    @property
    def hot(self) -> bool:
        return self.requests >= HOT_MIN_REQUESTS and max(self.request_share, self.unit_share) > HOT_SHARE


@dataclass
class TableRow:
    """A table (or one of its indexes) over the window, with its busiest keys."""

    table: str
    index: str
    requests: float = 0.0
    rcu: float = 0.0
    wcu: float = 0.0
    keys: dict[str, KeyRow] = field(default_factory=dict)

    @property
    def units(self) -> float:
        return self.rcu + self.wcu

    def top(self, by: str, limit: int = 10) -> list[KeyRow]:
        rows = sorted(self.keys.values(), key=lambda r: (-(r.requests if by == "requests" else r.units), r.key))
        return [r for r in rows if (r.requests if by == "requests" else r.units) > 0][:limit]

    @property
    def top_requests(self) -> list[KeyRow]:
        return self.top("requests")

    @property
    def top_units(self) -> list[KeyRow]:
        return self.top("units")

    @property
    def hot_keys(self) -> list[KeyRow]:
        return [r for r in self.top("requests", limit=len(self.keys)) if r.hot]


def window(minutes: int) -> list[TableRow]:
    """Every table and index touched in the last ``minutes`` whole minutes and this one, busiest first.

    [] when Redis fails. One pipeline: a hash and three sorted sets (each ≤ KEEP_PER_MINUTE) a minute.
    """
    hot_keys.flush(force=True)  # this process's latest counts first
    if optional_redis.paused():
        return []
    now = utcnow()
    # The minute now running and the ``minutes`` whole ones before it: a burst that began just
    # before the minute turned is not cut in two.
    stamps = [now - timedelta(minutes=back) for back in range(minutes + 1)]
    tables: dict[tuple[str, str], TableRow] = {}
    try:
        pipe = optional_redis.client(settings.REDIS_URL).pipeline(transaction=False)
        for at in stamps:
            pipe.hgetall(minute_key(at, "tables"))
            for metric in METRICS:
                pipe.zrange(minute_key(at, metric), 0, -1, withscores=True)
        answers = pipe.execute()
    except redis.exceptions.RedisError as error:
        optional_redis.failed("hot keys unavailable", error)
        return []
    per_key: dict[tuple[str, str], dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for n, answer in enumerate(answers):
        if n % 4 == 0:
            for raw_field, raw_value in answer.items():
                table, index, name = raw_field.decode().split(SEP)
                row = tables.setdefault((table, index), TableRow(table, index))
                setattr(row, name, getattr(row, name) + float(raw_value))
            continue
        for member, score in answer:
            table, index, key = member.decode().split(SEP, 2)
            figures = per_key[(table, index)][key]
            metric = METRICS[n % 4 - 1]
            figures[metric] = figures.get(metric, 0.0) + score
    for address, keys in per_key.items():
        row = tables.setdefault(address, TableRow(*address))
        for key, figures in keys.items():
            requests, rcu, wcu = (figures.get(m, 0.0) for m in METRICS)
            row.keys[key] = KeyRow(
                key,
                requests,
                rcu,
                wcu,
                request_share=requests / row.requests if row.requests else 0.0,
                unit_share=(rcu + wcu) / row.units if row.units else 0.0,
            )
    return sorted(tables.values(), key=lambda t: (-t.requests, t.table, t.index))
