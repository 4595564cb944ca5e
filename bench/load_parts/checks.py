"""The invariants of a finished load, read back: what DynamoDB stores now against what the users were told."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from load_parts import invariants
from load_parts.figures import status_totals
from load_parts.invariants import Issue, Project
from load_parts.ledger import Load
from load_parts.teams import Layout


def check(load: Load, layout: Layout, seconds: float) -> dict[str, dict[str, Any]]:
    """Every invariant by name: how many things it checked and its failures (none when it held)."""
    ledger = load.ledger
    projects = [(team, key) for team in layout.teams for key in layout.projects[team]]
    stored = read_stored(
        projects=projects,
        commented=list(ledger.comments),
        teams=layout.teams,
        attachments=ledger.attachments,
        users=len(layout.users),
    )
    statuses = status_totals(load.recorder)
    server = {code: n for code, n in statuses.items() if code.startswith("5")}
    server_errors = sum(server.values()) - ledger.busy
    transport = {code: n for code, n in statuses.items() if not code[:1].isdigit()}
    results = {
        "numbers unique and gap-free": invariants.check_numbers(stored.numbers),
        "every create stored once": invariants.check_created(
            [(i.team, i.project, i.number, i.title) for i in ledger.issues], stored.titles
        ),
        "forms sent twice": invariants.check_resubmits(ledger.resubmits),
        "comments": invariants.check_comments(ledger.comments, stored.comments),
        "orders": invariants.check_orders(ledger.orders, stored.orders),
        "leaderboard": invariants.check_scores(ledger.awards, stored.board),
        "attachments": invariants.check_attachments(ledger.attachments, stored.attachments, stored.in_flight),
        "jobs finished": invariants.check_jobs(ledger.jobs, projects=len(projects), load_seconds=seconds),
        "no server errors": (
            [f"5xx answers: {server} ({ledger.busy} of them busy create forms)"] if server_errors else []
        )
        + ([f"requests without an answer: {transport}"] if transport else []),
        "virtual users": list(ledger.crashes),
        "every step completed": [f"{why} ×{n}" for why, n in sorted(ledger.failed_steps.items())],
    }
    sizes = {
        "numbers unique and gap-free": len(projects),
        "every create stored once": len(ledger.issues),
        "forms sent twice": len(ledger.resubmits),
        "comments": sum(ledger.comments.values()),
        "orders": len(ledger.orders),
        "leaderboard": len(ledger.awards),
        "attachments": len(ledger.attachments),
        "jobs finished": len(ledger.jobs),
        "no server errors": sum(statuses.values()),
        "virtual users": len(layout.users) + 1,
        "every step completed": sum(len(v) for v in load.recorder.seconds.values()),
    }
    return {name: {"checked": sizes[name], "failures": failures} for name, failures in results.items()}


@dataclass
class Stored:
    numbers: dict[Project, list[int]] = field(default_factory=dict)
    titles: dict[Project, dict[int, str]] = field(default_factory=dict)
    comments: dict[Issue, int] = field(default_factory=dict)
    orders: dict[str, list[tuple[int, str, int]]] = field(default_factory=dict)
    board: dict[tuple[str, str], int] = field(default_factory=dict)
    attachments: dict[str, dict[str, Any]] = field(default_factory=dict)
    in_flight: list[str] = field(default_factory=list)


def read_stored(
    *,
    projects: Sequence[Project],
    commented: Iterable[Issue],
    teams: Sequence[str],
    attachments: Sequence[Mapping[str, Any]],
    users: int,
) -> Stored:
    """What DynamoDB holds now: every project's numbers and titles, comments, orders, the board, attachments."""
    from datetime import timedelta

    from django.conf import settings

    from ddbmodels import attachments as ddb_attachments
    from ddbmodels import comments, issues, orders, scores
    from ddbmodels.core.keys import utcnow
    from ddbmodels.core.threads import map_in_threads

    stored = Stored()

    def project(p: Project) -> tuple[Project, list[int], dict[int, str]]:
        team, key = p
        numbers = issues.issue_numbers(tenant=team, project_key=key)
        titles: dict[int, str] = {}
        after = None
        while True:
            page = issues.issue_page(tenant=team, project_key=key, size=100, after=after)
            titles.update({int(i.number): i.title for i in page.items})
            if page.older_than is None:
                break
            after = int(page.older_than)
        return p, numbers, titles

    for p, numbers, titles in map_in_threads(project, list(projects), workers=8):
        stored.numbers[p], stored.titles[p] = numbers, titles

    def comment_count(issue: Issue) -> tuple[Issue, int]:
        stream, count, after = comments.issue_stream(*issue), 0, None
        while True:
            page = comments.comment_page(stream=stream, size=comments.PAGE_SIZE_MAX, after=after)
            count += len(page.comments)
            if page.newer_than is None:
                return issue, count
            after = page.newer_than

    stored.comments = dict(map_in_threads(comment_count, list(commented), workers=8))
    for team in teams:
        held, after = [], None
        while True:
            page = orders.customer_orders_page(customer=team, size=100, after=after)
            held += [(int(o.number), o.product, int(o.quantity)) for o in page.items]
            if page.older_than is None:
                break
            after = page.older_than
        stored.orders[team] = held
        for ranked in scores.top_scores(tenant=team, k=max(users, 1) + 5, shards=settings.LEADERBOARD_SHARDS):
            stored.board[(team, ranked.member)] = int(ranked.score)
    for a in attachments:
        item = ddb_attachments.attachment_get(
            tenant=a["team"], project_key=a["project"], number=a["number"], attachment_id=a["id"], consistent=True
        )
        if item is not None:
            stored.attachments[a["id"]] = {"state": item.state, "size": int(item.size), "sha256": item.sha256}
    soon = utcnow() + timedelta(days=1)
    stored.in_flight = [i.attachment_id for i in ddb_attachments.attachments_in_flight(before=soon)]
    return stored
