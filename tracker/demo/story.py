"""A project's last weeks, made up and written in bulk: issues, every change in their history, comments, watchers.

The story is decided first (who opened what when, who picked it up, how far it got, who said
what), then written the way an import would: issues with their list keys and entries by
BatchWriteItem, comments and events by BatchWriteItem into their tables (the events into the
table of their period), watchers, and the notifications of the last days into people's inboxes.
Times are spread over the last five weeks, never before the previous events period (its table
is the oldest one the app writes to).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ddbmodels import comments, events, inbox
from ddbmodels.comments import CommentItem
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import PRIORITIES, IssueItem, collection_key, issues_put_many
from ddbmodels.patterns.time_series import period_shift
from tracker.demo.content import COMMENTS, DESCRIPTIONS, TITLES, VARIANTS, details_of
from tracker.markdown import plain_text
from tracker.services.comments import EXCERPT_CHARS
from tracker.services.inbox import note_text

SPAN = timedelta(days=35)
FLOW = ["open", "in_progress", "resolved", "closed"]
NOTIFY_WITHIN = timedelta(days=3)  # changes this recent reach the watchers' inboxes


@dataclass
class Change:
    when: datetime
    kind: str
    actor: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Told:
    """One issue of the story: the issue as it ends, its history, its comments, who watches it."""

    issue: IssueItem
    changes: list[Change]
    comments: list[CommentItem]
    watchers: set[str]


def _title(key: str, n: int) -> tuple[str, list[str]]:
    titles = TITLES.get(key) or TITLES["WEB"]
    title, labels = titles[(n - 1) % len(titles)]
    cycle = (n - 1) // len(titles)
    return title + VARIANTS[cycle % len(VARIANTS)] if cycle else title, list(labels)


def tell(
    rng: random.Random, *, tenant: str, key: str, count: int, people: list[str], now: datetime, period: str
) -> list[Told]:
    """The story of ``count`` issues of project ``key``, oldest first (numbers follow time)."""
    earliest = max(now - SPAN, period_shift(period, now, -1))  # type: ignore[arg-type]
    span = now - earliest
    told = []
    for n in range(1, count + 1):
        created = earliest + span * ((n - 1 + rng.random() * 0.8) / count) * 0.97
        title, labels = _title(key, n)
        reporter = rng.choice(people)
        changes = [Change(created, events.Kind.ISSUE_CREATED, reporter, {"title": title})]
        assignee = rng.choice([*people, None, None])
        when = created
        if assignee is not None and rng.random() < 0.4:  # picked up later, not when opened
            when = min(now, when + timedelta(hours=rng.uniform(1, 30)))
            changes.append(
                Change(when, events.Kind.ISSUE_EDITED, rng.choice(people), {"changed": {"assignee": [None, assignee]}})
            )
        age = (now - created) / span  # 0 (new) … 1 (five weeks old)
        steps = min(3, int(rng.random() * 2 + age * 3.2))
        status = "open"
        for to in FLOW[1 : steps + 1]:
            when = min(now, when + timedelta(hours=rng.uniform(2, 60)))
            changes.append(Change(when, events.Kind.ISSUE_STATUS, assignee or reporter, {"from": status, "to": to}))
            status = to
        notes: list[CommentItem] = []
        detail = details_of(title)  # words worth searching for (no random draw: the story stays the same)
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            when = min(now, when + timedelta(hours=rng.uniform(0.5, 20)))
            author = rng.choice(people)
            other = rng.choice([p for p in people if p != author] or people)
            body = rng.choice(COMMENTS).format(other=other)
            if detail and not notes:
                body += "\n\n" + detail[1]
            comment = CommentItem(
                stream=comments.issue_stream(tenant, key, n),
                key=comments.new_sort_key(when),
                author=author,
                body=body,
                version=1,
                created_at=when,
                updated_at=when,
            )
            notes.append(comment)
            mentions = [other] if f"@{other}" in body else []
            changes.append(
                Change(
                    when,
                    events.Kind.COMMENT_ADDED,
                    author,
                    {"comment": comment.key, "mentions": mentions, "excerpt": plain_text(body)[:EXCERPT_CHARS]},
                )
            )
        changes.sort(key=lambda change: change.when)
        issue = IssueItem(
            pk=collection_key(tenant, key),
            number=n,
            title=title,
            description=(detail[0] + "\n\n" if detail else "") + rng.choice(DESCRIPTIONS),
            status=status,
            priority=rng.choices(PRIORITIES, weights=[3, 6, 3, 1])[0],
            assignee=assignee,
            reporter=reporter,
            labels=set(rng.sample(labels, rng.randint(0, len(labels)))) or None,
            created_at=created,
            updated_at=changes[-1].when,
            version=1 + len([c for c in changes if c.kind in (events.Kind.ISSUE_EDITED, events.Kind.ISSUE_STATUS)]),
        )
        watchers = {reporter, *([assignee] if assignee else [])}
        for change in changes:
            if change.kind == events.Kind.COMMENT_ADDED:
                watchers.add(change.actor)
                watchers.update(change.data["mentions"])
        told.append(Told(issue=issue, changes=changes, comments=notes, watchers=watchers))
    return told


def write(told: list[Told], *, tenant: str, period: str, shards: int, now: datetime | None = None) -> dict[str, int]:
    """Write the story (BatchWriteItem throughout); how many of each thing were written."""
    now = now or utcnow()
    issues_put_many(t.issue for t in told)
    comments.comments_put_many(c for t in told for c in t.comments)
    rows: list[tuple[str, dict[str, Any]]] = []
    tables: set[str] = set()
    recent: list[tuple[Told, Change, str]] = []
    for t in told:
        stream = comments.issue_stream(tenant, t.issue.project_key, int(t.issue.number))
        for change in t.changes:
            name = events.EVENTS.table_name(period, change.when)  # type: ignore[arg-type]
            tables.add(name)
            item = events.event_item(
                stream=stream,
                kind=change.kind,
                actor=change.actor,
                tenant=tenant,
                data=change.data,
                when=change.when,
                shards=shards,
            )
            rows.append((name, item))
            if now - change.when <= NOTIFY_WITHIN:
                recent.append((t, change, item["t"]["S"]))
    for name in sorted(tables):
        events.create_events_table(name)
    events.events_put_many(rows)
    for t in told:
        inbox.watchers_add(
            tenant=tenant, project_key=t.issue.project_key, number=int(t.issue.number), usernames=t.watchers
        )
    delivered = 0
    for t, change, event_key in recent:
        reference = t.issue.reference
        notes = [
            inbox.Note(
                username=name,
                project_key=t.issue.project_key,
                number=int(t.issue.number),
                actor=change.actor,
                kind=change.kind,
                text=note_text(
                    kind=change.kind,
                    actor=change.actor,
                    data=change.data,
                    reference=reference,
                    title=t.issue.title,
                    recipient=name,
                    assignee=t.issue.assignee or "",
                ),
            )
            for name in sorted(t.watchers - {change.actor})
        ]
        if notes:
            delivery = inbox.deliver(tenant=tenant, event_key=event_key, notes=notes, when=change.when)
            delivered += len(delivery.delivered) + len(delivery.late)
    return {
        "issues": len(told),
        "comments": sum(len(t.comments) for t in told),
        "events": len(rows),
        "notifications": delivered,
    }
