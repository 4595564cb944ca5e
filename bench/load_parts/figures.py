"""The load's figures: latency by page or action (client side); capacity by page, pattern and job, and the hottest
partition keys (server side, from the app's own figures in the run's Redis)."""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from load_parts.client import Recorder
from load_parts.ledger import Load
from load_parts.teams import Layout

HOT_KEYS_SHOWN = 12


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of ``values``; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def latency_rows(recorder: Recorder) -> list[dict[str, Any]]:
    rows = []
    for label in sorted(recorder.seconds, key=lambda name: -len(recorder.seconds[name])):
        seconds, statuses = recorder.seconds[label], recorder.statuses[label]
        errors = {code: n for code, n in sorted(statuses.items()) if not code.startswith(("2", "3"))}
        rows.append(
            {
                "label": label,
                "count": len(seconds),
                "p50_ms": round(percentile(seconds, 50) * 1000, 1),
                "p99_ms": round(percentile(seconds, 99) * 1000, 1),
                "max_ms": round(max(seconds) * 1000, 1),
                "errors": errors,
            }
        )
    return rows


def status_totals(recorder: Recorder) -> Counter[str]:
    total: Counter[str] = Counter()
    for statuses in recorder.statuses.values():
        total.update(statuses)
    return total


def capacity_rows(kind: str) -> list[dict[str, Any]]:
    """The app's figures in Redis (``tracker.capacity_stats``) of this run: per page, pattern or job."""
    from tracker import capacity_stats

    rows = []
    for row in capacity_stats.totals(kind, days=2):  # type: ignore[arg-type]
        count = max(row.count, 1)
        rows.append(
            {
                "label": row.label,
                "count": row.count,
                "rcu": round(row.rcu, 2),
                "wcu": round(row.wcu, 2),
                "requests": row.requests,
                "rcu_per": round(row.rcu / count, 2),
                "wcu_per": round(row.wcu / count, 2),
                "requests_per": round(row.requests / count, 2),
            }
        )
    return rows


# Tables whose writes go to one key on purpose, and why (said beside their share in the report).
ONE_KEY_BY_DESIGN = {
    "issues": "a project's own collection: its numbers are one sequence, so the hot project's creates share its key",
    "counters": "the global order counter: one number sequence for every team",
}
# Derived tables that must spread a team's writes: no key above this share of its table's writes in the load.
SPREAD_TABLES = ("labels", "idempotency_keys")
SPREAD_MAX_SHARE = 0.25
SPREAD_MIN_WCU = 100  # below this a table's writes are too few to judge a share (a 4-second run writes a handful)


def write_share_rows(minutes: int, prefix: str) -> list[dict[str, Any]]:
    """Per table (base tables, not indexes): its write units, its hottest key by write units and that key's share."""
    from tracker import hot_key_stats

    rows: list[dict[str, Any]] = []
    for table in hot_key_stats.window(minutes):
        if table.index or table.wcu <= 0:
            continue
        hottest = max(table.keys.values(), key=lambda k: (k.wcu, k.key), default=None)
        if hottest is None or hottest.wcu <= 0:
            continue
        base = table.table.removeprefix(prefix)
        rows.append(
            {
                "table": base,
                "wcu": round(table.wcu, 1),
                "keys": sum(1 for k in table.keys.values() if k.wcu > 0),
                "key": hottest.key,
                "key_wcu": round(hottest.wcu, 1),
                "share": round(hottest.wcu / table.wcu, 4),
                "note": ONE_KEY_BY_DESIGN.get(base, ""),
            }
        )
    rows.sort(key=lambda r: (-r["share"], r["table"]))
    return rows


def check_spread(rows: list[dict[str, Any]]) -> list[str]:
    """Failures: a derived table (labels, idempotency keys) whose hottest key took more than a quarter of its writes
    (judged once the table took SPREAD_MIN_WCU write units in the run)."""
    return [
        f"{r['table']}: key {r['key']} took {r['share'] * 100:.1f} % of the table's writes (at most "
        f"{SPREAD_MAX_SHARE * 100:.0f} %)"
        for r in rows
        if r["table"] in SPREAD_TABLES
        and r["share"] > SPREAD_MAX_SHARE
        and r.get("wcu", SPREAD_MIN_WCU) >= SPREAD_MIN_WCU
    ]


def hot_key_rows(minutes: int, prefix: str) -> list[dict[str, Any]]:
    """The busiest partition keys of the window, each with its share of its table's (or index's) traffic."""
    from tracker import hot_key_stats

    rows: list[dict[str, Any]] = []
    for table in hot_key_stats.window(minutes):
        for key in table.top("requests", limit=3):
            rows.append(
                {
                    "table": table.table.removeprefix(prefix),
                    "index": table.index,
                    "key": key.key,
                    "requests": round(key.requests),
                    "table_requests": round(table.requests),
                    "request_share": round(key.request_share, 4),
                    "units": round(key.units, 2),
                    "unit_share": round(key.unit_share, 4),
                    "hot": key.hot,
                }
            )
    rows.sort(key=lambda r: (-r["requests"], r["table"], r["key"]))
    return rows[:HOT_KEYS_SHOWN]


def reset_figures() -> None:
    """Forget the capacity and hot-key figures of the setup: what is read back is the load's."""
    from django.conf import settings

    from tracker import optional_redis

    client = optional_redis.client(settings.REDIS_URL)
    for pattern in ("tracker:ddbcap:*", "tracker:hotkeys:*"):
        for key in client.scan_iter(pattern):
            client.delete(key)


def queued_tasks() -> dict[str, int]:
    """Celery tasks still waiting in the broker when the load ended, by task name (inbox deliveries, counts)."""
    from django.conf import settings

    from tracker import optional_redis

    names: Counter[str] = Counter()
    for raw in optional_redis.client(settings.REDIS_URL).lrange("celery", 0, -1):  # type: ignore[union-attr]
        try:
            names[json.loads(raw)["headers"]["task"].rsplit(".", 1)[-1]] += 1
        except (ValueError, KeyError, TypeError):
            names["(unreadable)"] += 1
    return dict(names.most_common())


def figures_of(args: argparse.Namespace, load: Load, layout: Layout, seconds: float, prefix: str) -> dict[str, Any]:
    """Everything the report shows and the JSON holds, but the invariants."""
    ledger, recorder = load.ledger, load.recorder
    statuses = status_totals(recorder)
    total = sum(statuses.values())
    hot_team, hot_key = layout.hot
    minutes = min(15, math.ceil((time.monotonic() - load.began) / 60))
    return {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "settings": {
            "seconds": args.seconds,
            "users": args.users,
            "hot_writers": args.hot_writers,
            "teams": args.teams,
            "zipf_s": args.zipf_s,
            "seed": args.seed,
            "seed_issues": args.seed_issues,
            "worker_concurrency": args.worker_concurrency,
            "cores": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "load_seconds": round(seconds, 2),
        "requests": total,
        "requests_per_second": round(total / seconds, 2) if seconds else 0.0,
        "status_codes": dict(sorted(statuses.items())),
        "server_errors": sum(n for code, n in statuses.items() if code.startswith("5")) - ledger.busy,
        "busy": ledger.busy,
        "made": {
            "hot_project": f"{hot_team}/{hot_key}",
            "issues": len(ledger.issues),
            "hot_issues": sum(1 for i in ledger.issues if (i.team, i.project) == layout.hot),
            "orders": len(ledger.orders),
            "comments": sum(ledger.comments.values()),
            "attachments": len(ledger.attachments),
            "detached": sum(1 for a in ledger.attachments if a["state"] == "Detached"),
            "resolved": len(ledger.resolved),
            "points": sum(ledger.awards.values()),
            "forms_sent_twice": len(ledger.resubmits),
        },
        "team_shares": {
            team: round(ledger.team_steps[team] / max(1, sum(ledger.team_steps.values())), 4) for team in layout.teams
        },
        "pages": latency_rows(recorder),
        "capacity_by_page": capacity_rows("page"),
        "capacity_by_pattern": capacity_rows("pattern"),
        "capacity_by_job": capacity_rows("job"),
        "hot_keys": hot_key_rows(minutes, prefix),
        "write_shares": write_share_rows(minutes, prefix),
        "jobs": ledger.jobs,
    }
