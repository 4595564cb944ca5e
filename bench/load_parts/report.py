"""The load's figures (``figures``) as text and Markdown: one table each, the invariants last."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PATTERNS_SHOWN = 15


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
    shares = [
        [
            r["table"],
            f"{r['wcu']:.0f}",
            str(r["keys"]),
            r["key"],
            f"{r['share'] * 100:.1f} %",
            r["note"] or ("spread: at most 25 %" if r["table"] in ("labels", "idempotency_keys") else ""),
        ]
        for r in figures.get("write_shares", [])
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
        (
            "Each table's hottest key by write units (its share of the table's writes)",
            ["table", "WCU", "keys written", "hottest key", "share", "note"],
            shares,
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
        f"Celery tasks still queued at the end: {sum(figures.get('queued_tasks_at_end', {}).values())}; "
        "error lines in the logs: "
        + ", ".join(f"{name} {e['count']}" for name, e in figures.get("log_errors", {}).items())
        + "\n"
        "checked (made and read back): "
        + ", ".join(f"{n} {kind}" for kind, n in figures.get("exercised", {}).items())
        + f"; the checks waited {figures.get('settle_seconds', 0)} s for the worker\n"
        "seconds: " + ", ".join(f"{name} {n}" for name, n in figures.get("phase_seconds", {}).items()) + "\n"
        "members' steps by team (rank 1 first): "
        + ", ".join(f"{share * 100:.0f} %" for share in figures["team_shares"].values())
    )


def markdown_report(figures: Mapping[str, Any]) -> str:
    parts = [f"# bench/load.py — {figures['when']}", "", headline(figures)]
    for title, header, rows in tables(figures):
        if rows:
            parts += ["", f"## {title}", "", markdown(header, rows)]
    return "\n".join(parts) + "\n"
