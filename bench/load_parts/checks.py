"""The invariants of a finished load, read back by ``stored.read`` (the checker's own boto3 client and SQL):
what DynamoDB and the search index hold now against what the users were told, both ways."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from load_parts import invariants
from load_parts.figures import status_totals
from load_parts.ledger import Load
from load_parts.stored import Stored
from load_parts.teams import Layout

# The checks of what is stored; each may lag the load by the worker's queue (fan-out, search index,
# label repair, counts), so they are read again until they hold or the settle time runs out.
STORED_CHECKS = (
    "numbers unique and gap-free",
    "issues stored as told, none untold",
    "busy creates wrote nothing",
    "comments stored as told, none untold",
    "orders stored as told, none untold",
    "attachments stored as told, none untold",
    "events recorded by the steps",
    "inbox: notifications and unread counts",
    "inbox: every watcher told of each change",
    "label entries equal the issues",
    "search documents equal the items",
    "project counts equal the issues",
    "leaderboard",
)
SETTLE_POLL_SECONDS = 1.0


def _members(layout: Layout) -> dict[str, list[str]]:
    """Each team's members: every person of the run is a member of every team."""
    return dict.fromkeys(layout.teams, layout.users)


def stored_results(load: Load, layout: Layout, stored: Stored) -> dict[str, list[str]]:
    """Each check of what is stored (both ways) by name: its failures."""
    ledger = load.ledger
    return {
        "numbers unique and gap-free": invariants.check_numbers(stored.numbers),
        "issues stored as told, none untold": invariants.check_issues(ledger.issues, layout.seeded, stored.issues),
        "busy creates wrote nothing": invariants.check_busy(ledger.busy_creates, stored),
        "comments stored as told, none untold": invariants.check_comments(ledger.comment_bodies, stored),
        "orders stored as told, none untold": invariants.check_orders(ledger.orders, stored),
        "attachments stored as told, none untold": invariants.check_attachments(ledger.attachments, stored.attachments),
        "events recorded by the steps": invariants.check_events(
            invariants.told_events(ledger.issues, ledger.status_changes, ledger.comment_bodies, ledger.attachments),
            stored,
        ),
        "inbox: notifications and unread counts": invariants.check_inbox(stored),
        "inbox: every watcher told of each change": invariants.check_fan_out(stored, _members(layout)),
        "label entries equal the issues": invariants.check_labels(stored),
        "search documents equal the items": invariants.check_search(stored, layout.teams),
        "project counts equal the issues": invariants.check_counts(stored),
        "leaderboard": invariants.check_scores(ledger.awards, stored.scores),
    }


def stored_sizes(load: Load, stored: Stored) -> dict[str, int]:
    """How many things each check of what is stored compared (told and stored)."""
    ledger = load.ledger
    return {
        "numbers unique and gap-free": len(stored.issues),
        "issues stored as told, none untold": len(ledger.issues),
        "busy creates wrote nothing": ledger.busy,
        "comments stored as told, none untold": len(stored.comments),
        "orders stored as told, none untold": len(stored.orders),
        "attachments stored as told, none untold": len(stored.attachments),
        "events recorded by the steps": len(stored.events),
        "inbox: notifications and unread counts": len(stored.notifications),
        "inbox: every watcher told of each change": len(invariants.owed_notifications(stored, _members(load.layout))),
        "label entries equal the issues": len(stored.labels),
        "search documents equal the items": len(stored.documents),
        "project counts equal the issues": len(stored.projects),
        "leaderboard": len(ledger.awards),
    }


def settle(
    load: Load, layout: Layout, read: Callable[[], Stored], timeout: float
) -> tuple[Stored, dict[str, list[str]], float]:
    """Read what is stored and check it until every check holds or ``timeout`` seconds passed (the worker
    catching up); the last reading, its results and the seconds it took."""
    began = time.monotonic()
    while True:
        stored = read()
        results = stored_results(load, layout, stored)
        if not any(results.values()) or time.monotonic() - began >= timeout:
            return stored, results, time.monotonic() - began
        time.sleep(SETTLE_POLL_SECONDS)


def check(
    load: Load, layout: Layout, seconds: float, stored: Stored, results: Mapping[str, list[str]]
) -> dict[str, dict[str, Any]]:
    """Every invariant by name: how many things it checked and its failures (none when it held)."""
    ledger = load.ledger
    projects = [(team, key) for team in layout.teams for key in layout.projects[team]]
    statuses = status_totals(load.recorder)
    server = {code: n for code, n in statuses.items() if code.startswith("5")}
    server_errors = sum(server.values()) - ledger.busy
    transport = {code: n for code, n in statuses.items() if not code[:1].isdigit()}
    every = {
        **results,
        "forms sent twice": invariants.check_resubmits(ledger.resubmits),
        # The load lasts until its last user stopped (the opening steps may outlast a short run's clock).
        "jobs finished": invariants.check_jobs(
            ledger.jobs, projects=len(projects), load_seconds=max(seconds, ledger.users_done)
        ),
        "no server errors": (
            [f"5xx answers: {server} ({ledger.busy} of them busy create forms)"] if server_errors else []
        )
        + ([f"requests without an answer: {transport}"] if transport else []),
        "virtual users": list(ledger.crashes),
        "every step completed": [f"{why} ×{n}" for why, n in sorted(ledger.failed_steps.items())],
    }
    sizes = {
        **stored_sizes(load, stored),
        "forms sent twice": len(ledger.resubmits),
        "jobs finished": len(ledger.jobs),
        "no server errors": sum(statuses.values()),
        "virtual users": len(layout.users) + 1,
        "every step completed": sum(len(v) for v in load.recorder.seconds.values()),
    }
    return {name: {"checked": sizes[name], "failures": failures} for name, failures in every.items()}


def exercised(load: Load, stored: Stored) -> dict[str, int]:
    """How many of each kind the run made and the checks compared (a check of nothing proves nothing)."""
    ledger = load.ledger
    return {
        "issues created": len(ledger.issues),
        "issues stored": len(stored.issues),
        "status changes": len(ledger.status_changes),
        "busy creates": ledger.busy,
        "comments": len(ledger.comment_bodies),
        "orders": len(ledger.orders),
        "attachments": len(ledger.attachments),
        "detached": sum(1 for a in ledger.attachments if a["state"] == "Detached"),
        "events": len(stored.events),
        "watchers": len(stored.watchers),
        "notifications": len(stored.notifications),
        "unread notifications": sum(h.unread for h in stored.heads.values()),
        "notifications opened": ledger.inbox["opened"],
        "inboxes marked read": ledger.inbox["marked all read"],
        "label entries": len(stored.labels),
        "search documents": len(stored.documents),
        "projects counted": len(stored.projects),
        "scores": len(stored.scores),
    }
