"""The load's figures: latency by page or action (client side), capacity by page, pattern and job, and the
hottest partition keys (server side, from the app's own Redis figures), as text, JSON and Markdown."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from load_parts.client import Recorder

BUSY = "busy"  # a create form answered 503 "very busy, submit again": the sequence gave up, by design
HOT_KEYS_SHOWN = 12
PATTERNS_SHOWN = 15


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


def align(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    widths = [max([len(h), *(len(line[i]) for line in lines)]) for i, h in enumerate(header)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([fmt(header), "  ".join("-" * w for w in widths), *(fmt(line) for line in lines)])


def markdown(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    return "\n".join(
        ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        + ["| " + " | ".join(line) + " |" for line in lines]
    )


def errors_text(errors: Mapping[str, int]) -> str:
    return ", ".join(f"{code}×{n}" for code, n in errors.items()) or "0"


def tables(figures: Mapping[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table the report prints."""
    pages = [
        [
            r["label"],
            str(r["count"]),
            f"{r['p50_ms']:.0f}",
            f"{r['p99_ms']:.0f}",
            f"{r['max_ms']:.0f}",
            errors_text(r["errors"]),
        ]
        for r in figures["pages"]
    ]
    capacity = [
        [
            r["label"],
            str(r["count"]),
            f"{r['rcu_per']:.2f}",
            f"{r['wcu_per']:.2f}",
            f"{r['requests_per']:.2f}",
            f"{r['rcu']:.1f}",
            f"{r['wcu']:.1f}",
        ]
        for r in figures["capacity_by_page"]
    ]
    patterns = [
        [r["label"], str(r["count"]), f"{r['rcu_per']:.2f}", f"{r['wcu_per']:.2f}", f"{r['requests_per']:.2f}"]
        for r in figures["capacity_by_pattern"][:PATTERNS_SHOWN]
    ]
    jobs = [
        [r["label"], str(r["count"]), f"{r['rcu']:.1f}", f"{r['wcu']:.1f}", str(r["requests"])]
        for r in figures["capacity_by_job"]
    ]
    hot = [
        [
            r["table"] + (f" ({r['index']})" if r["index"] else ""),
            r["key"],
            str(r["requests"]),
            f"{r['request_share'] * 100:.1f} %",
            f"{r['units']:.1f}",
            f"{r['unit_share'] * 100:.1f} %",
            "yes" if r["hot"] else "",
        ]
        for r in figures["hot_keys"]
    ]
    checks = [
        [name, "held" if not c["failures"] else "FAILED", "; ".join(c["failures"])[:300]]
        for name, c in figures["invariants"].items()
    ]
    return [
        (
            "Client side: each page or action",
            ["page / action", "requests", "p50 ms", "p99 ms", "max ms", "errors"],
            pages,
        ),
        (
            "Server side: capacity per request, by page (the app's figures in Redis)",
            ["page (URL name)", "served", "RCU/req", "WCU/req", "DynamoDB calls/req", "RCU", "WCU"],
            capacity,
        ),
        (
            f"Server side: capacity per call, by access pattern (the {PATTERNS_SHOWN} that used the most)",
            ["access pattern", "calls", "RCU/call", "WCU/call", "DynamoDB calls/call"],
            patterns,
        ),
        ("Maintenance jobs (run by the worker during the load)", ["job", "runs", "RCU", "WCU", "DynamoDB calls"], jobs),
        (
            "Hottest partition keys (top 3 per table or index, by requests)",
            ["table (index)", "partition key", "requests", "share", "units", "unit share", "hot"],
            hot,
        ),
        ("Invariants", ["check", "verdict", "failures"], checks),
    ]


def text(figures: Mapping[str, Any]) -> str:
    parts = [headline(figures)]
    for title, header, rows in tables(figures):
        if rows:
            parts.append(f"\n{title}\n{align(header, rows)}")
    return "\n".join(parts)


def headline(figures: Mapping[str, Any]) -> str:
    s = figures["settings"]
    made = figures["made"]
    return (
        f"{figures['requests']} requests in {figures['load_seconds']:.1f} s ({figures['requests_per_second']:.1f}/s): "
        f"{s['users']} users ({s['hot_writers']} writing to {made['hot_project']}), {s['teams']} teams, "
        f"Zipf s={s['zipf_s']}; "
        f"{made['issues']} issues created ({made['hot_issues']} in {made['hot_project']}), {made['orders']} orders, "
        f"{made['comments']} comments, {made['attachments']} attachments, {made['resolved']} resolved "
        f"({made['points']} points); 5xx: {figures['server_errors']}, busy: {figures['busy']}; "
        f"Celery tasks still queued at the end: {figures.get('queued_tasks_at_end', '?')}\n"
        "members' steps by team (rank 1 first): "
        + ", ".join(f"{share * 100:.0f} %" for share in figures["team_shares"].values())
    )


def markdown_report(figures: Mapping[str, Any]) -> str:
    parts = [f"# bench/load.py — {figures['when']}", "", headline(figures)]
    for title, header, rows in tables(figures):
        if rows:
            parts += ["", f"## {title}", "", markdown(header, rows)]
    return "\n".join(parts) + "\n"
