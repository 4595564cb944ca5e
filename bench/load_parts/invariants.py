"""What must hold after the load, both ways: what was told is stored, and what is stored was told.

The ``check_*`` functions are plain Python over what the users were told (the ``Ledger``) and
what was read back (a ``stored.Stored``, read by the checker's own boto3 client and one SQL
statement, never through the code it checks), so the tests hand them a ``Stored`` built by hand
with one thing wrong. Each returns its failures, each naming what broke.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from load_parts.ledger import BusyCreate, CreatedIssue
from load_parts.stored import Attachment, Event, Stored, StoredIssue, split_stream

Project = tuple[str, str]  # (team, project key)
Issue = tuple[str, str, int]  # (team, project key, number)
SHOWN = 10  # examples named in a failure


def _some(values: Iterable[Any]) -> str:
    listed = sorted(values)
    more = f" … (+{len(listed) - SHOWN})" if len(listed) > SHOWN else ""
    return ", ".join(map(str, listed[:SHOWN])) + more


def _found(*checks: tuple[str, Sequence[Any]]) -> list[str]:
    """One failure per check that found anything: what it means, then some of what it found."""
    return [f"{what}: {_some(found)}" for what, found in checks if found]


def check_numbers(stored: Mapping[Project, Sequence[int]]) -> list[str]:
    """Each project's numbers unique and gap-free: exactly 1..max (the issues made in the load included)."""
    failures = []
    for (team, key), numbers in sorted(stored.items()):
        twice = [n for n, count in Counter(numbers).items() if count > 1]
        if twice:
            failures.append(f"{team}/{key}: number(s) stored more than once: {_some(twice)}")
        top = max(numbers, default=0)
        missing = set(range(1, top + 1)) - set(numbers)
        if missing:
            failures.append(f"{team}/{key}: gap(s) in 1..{top}: {_some(missing)}")
        if any(n < 1 for n in numbers):
            failures.append(f"{team}/{key}: number(s) below 1: {_some(n for n in numbers if n < 1)}")
    return failures


def check_resubmits(resubmits: Sequence[Mapping[str, str]]) -> list[str]:
    """A form sent twice (same idempotency key) lands where the first did, and makes nothing new."""
    wrong = [
        f"{r['label']}: first {r['first']}, again {r['second']} ({r['status']})"
        for r in resubmits
        if r["status"] != "302" or r["first"] != r["second"]
    ]
    return _found(("a form sent twice did not return its first result", wrong))


def check_scores(awarded: Mapping[tuple[str, str], int], board: Mapping[tuple[str, str], int]) -> list[str]:
    """Each member's leaderboard score equals the points of the issues they resolved in the load."""
    keys = set(awarded) | {k for k, v in board.items() if v}
    wrong = [
        f"{team} {user}: awarded {awarded.get((team, user), 0)}, board {board.get((team, user), 0)}"
        for team, user in sorted(keys)
        if awarded.get((team, user), 0) != board.get((team, user), 0)
    ]
    return _found(("leaderboard totals differ from the awards made", wrong))


def check_jobs(jobs: Sequence[Mapping[str, Any]], *, projects: int, load_seconds: float) -> list[str]:
    """Each job was started during the load and finished (SUCCESS, status done); the backfill saw every project."""
    failures = []
    if not jobs:
        return ["no maintenance job ran"]
    for job in jobs:
        name = job.get("job")
        if job.get("error") or job.get("state") != "SUCCESS":
            failures.append(f"job {name} did not finish: {job.get('state')} {job.get('error') or ''}".rstrip())
            continue
        outcome = job.get("result") or {}
        if outcome.get("status") != "done":
            failures.append(f"job {name} ended {outcome.get('status')!r}, not done")
        if job.get("started_at", load_seconds) >= load_seconds:
            failures.append(f"job {name} started after the load ({job.get('started_at')} s ≥ {load_seconds} s)")
        if name == "backfill_project_counts":
            counted = (outcome.get("result") or {}).get("collections")
            refreshed = (outcome.get("result") or {}).get("refreshed")
            if counted != projects or refreshed != projects:
                failures.append(f"backfill saw {counted} and refreshed {refreshed} of {projects} projects")
    return failures


def _shown(value: Any) -> str:
    return "{" + ", ".join(sorted(value)) + "}" if isinstance(value, frozenset) else str(value)


def _name(issue: tuple[str, str, int]) -> str:
    team, project, number = issue
    return f"{team}/{project}-{number}"


def check_issues(
    told: Sequence[CreatedIssue], seeded: Mapping[Project, int], stored: Mapping[Issue, StoredIssue]
) -> list[str]:
    """Every create the users were told of is stored once, under its number, as told (title, priority,
    assignee, labels, the status they last moved it to); every stored issue above a project's seeded
    ones was told to someone (an extra or duplicated issue fails)."""
    failures = []
    numbers = Counter((i.team, i.project, i.number) for i in told)
    if shared := [_name(k) for k, count in numbers.items() if count > 1]:
        failures.append(f"two creates were told the same number: {_some(shared)}")
    lost, unlike = [], []
    for i in told:
        got = stored.get((i.team, i.project, i.number))
        if got is None or got.title != i.title:
            lost.append(_name((i.team, i.project, i.number)))
            continue
        wanted: dict[str, Any] = {"priority": i.priority, "assignee": i.by, "labels": i.labels, "status": i.status}
        have: dict[str, Any] = {"priority": got.priority, "assignee": got.assignee, "labels": got.labels}
        wanted["deleted"], have["status"], have["deleted"] = False, got.status, got.deleted
        if differ := [f"{k} {_shown(have[k])} (told {_shown(v)})" for k, v in wanted.items() if have[k] != v]:
            unlike.append(f"{_name((i.team, i.project, i.number))} {', '.join(differ)}")
    if lost:
        failures.append(f"created but not stored under its number (lost or overwritten): {_some(lost)}")
    if unlike:
        failures.append(f"stored otherwise than told: {_some(unlike)}")
    titles = {(i.team, i.project, i.title) for i in told}
    copies = Counter((t, p, got.title) for (t, p, _), got in stored.items() if (t, p, got.title) in titles)
    if twice := [f"{t}/{p} {title!r}" for (t, p, title), count in copies.items() if count > 1]:
        failures.append(f"created once, stored more than once: {_some(twice)}")
    untold = [
        _name(key)
        for key in stored
        if key[2] > seeded.get(key[:2], 0) and key not in numbers  # type: ignore[index]
    ]
    if untold:
        failures.append(f"issue(s) stored that no user was told of: {_some(untold)}")
    return failures


def check_busy(busy: Sequence[BusyCreate], stored: Stored) -> list[str]:
    """A create answered "busy" wrote nothing: no issue with its title, no idempotency record of its form."""
    titles = {(t, p, i.title) for (t, p, _), i in stored.issues.items()}
    wrote = [f"{b.team}/{b.project} {b.title!r} (an issue)" for b in busy if (b.team, b.project, b.title) in titles]
    wrote += [
        f"{b.team}/{b.project} {b.title!r} (its idempotency record)"
        for b in busy
        if f"{b.team}#issue#{b.project}#{b.key}" in stored.idempotency_keys
    ]
    return _found(("create(s) answered busy wrote something", wrote))


def check_comments(told: Sequence[tuple[Issue, str]], stored: Stored) -> list[str]:
    """Every comment the users were told was posted is stored once on its issue, and every stored
    comment was told (bodies are unique per post: a form sent twice must not store it twice)."""
    failures = []
    want = Counter(told)
    have = Counter((c.issue, c.body) for c in stored.comments)
    if missing := [f"{_name(issue)} {body!r}" for (issue, body) in want if have[(issue, body)] < 1]:
        failures.append(f"comment(s) told posted but not stored: {_some(missing)}")
    if twice := [
        f"{_name(issue)} {body!r} ×{n}" for (issue, body), n in have.items() if n > max(1, want[(issue, body)])
    ]:
        failures.append(f"comment(s) stored more than once: {_some(twice)}")
    if untold := [f"{_name(issue)} {body!r}" for (issue, body) in have if (issue, body) not in want]:
        failures.append(f"comment(s) stored that no user was told of: {_some(untold)}")
    return failures


def check_orders(placed: Sequence[tuple[str, int, str, int]], stored: Stored) -> list[str]:
    """Order numbers unique; every order placed stored once as ordered; every stored order placed
    by a user who was told so (an extra or duplicated order fails); the counter at its highest number."""
    failures = []
    told = Counter(number for _, number, _, _ in placed)
    if twice := [n for n, c in told.items() if c > 1]:
        failures.append(f"order number(s) told to two orders: {_some(twice)}")
    every = Counter(number for _, number, _, _ in stored.orders)
    if twice := [n for n, c in every.items() if c > 1]:
        failures.append(f"order number(s) stored twice: {_some(twice)}")
    held = {(team, number): (product, quantity) for team, number, product, quantity in stored.orders}
    if missing := [f"{t} #{n}" for t, n, product, q in placed if held.get((t, n)) != (product, q)]:
        failures.append(f"placed but not stored as ordered: {_some(missing)}")
    placed_keys = {(t, n) for t, n, _, _ in placed}
    if untold := [f"{t} #{n}" for t, n, _, _ in stored.orders if (t, n) not in placed_keys]:
        failures.append(f"order(s) stored that no user was told of: {_some(untold)}")
    top = max(every, default=0)
    if stored.counters.get("orders", 0) < top:
        failures.append(f"order counter at {stored.counters.get('orders', 0)}, below the highest order #{top}")
    return failures


def check_attachments(made: Sequence[Mapping[str, Any]], stored: Mapping[str, Attachment]) -> list[str]:
    """Every attachment in the state its flow left it (Attached, or Detached after a detach), its bytes
    intact, none in flight; every stored attachment one a user was told of."""
    failures = []
    wrong = []
    for a in made:
        got = stored.get(a["id"])
        if got is None:
            wrong.append(f"{a['id']} missing")
        elif got.issue != (a["team"], a["project"], a["number"]):
            wrong.append(
                f"{a['id']} on {_name(got.issue)}, attached to {_name((a['team'], a['project'], a['number']))}"
            )
        elif got.state != a["state"]:
            wrong.append(f"{a['id']} {got.state}, expected {a['state']}")
        elif (got.size, got.sha256) != (a["size"], a["sha256"]):
            wrong.append(f"{a['id']} stored {got.size} B, sent {a['size']} B (or other bytes)")
    if wrong:
        failures.append(f"attachments not as their flow left them: {_some(wrong)}")
    ours = {a["id"] for a in made}
    if untold := [f"{_name(a.issue)} {i} {a.state}" for i, a in stored.items() if i not in ours]:
        failures.append(f"attachment(s) stored that no user was told of: {_some(untold)}")
    if stuck := [i for i, a in stored.items() if a.in_flight]:
        failures.append(f"attachments still in flight: {_some(stuck)}")
    return failures


# The events the load's steps record, one per step told it succeeded.
EVENT_KINDS = ("issue.created", "issue.status", "comment.added", "attachment.added", "attachment.removed")


def told_events(
    issues: Sequence[CreatedIssue],
    status_changes: Sequence[tuple[str, str, int, str]],
    comments: Sequence[tuple[Issue, str]],
    attachments: Sequence[Mapping[str, Any]],
) -> Counter[tuple[str, str]]:
    """(stream, kind) → how many events the steps the users were told of must have recorded."""
    told: Counter[tuple[str, str]] = Counter()
    told.update((i.stream, "issue.created") for i in issues)
    told.update((f"{t}#{p}#{n}", "issue.status") for t, p, n, _ in status_changes)
    told.update((f"{t}#{p}#{n}", "comment.added") for (t, p, n), _ in comments)
    for a in attachments:
        stream = f"{a['team']}#{a['project']}#{a['number']}"
        told[(stream, "attachment.added")] += 1
        if a["state"] == "Detached":
            told[(stream, "attachment.removed")] += 1
    return told


def check_events(told: Counter[tuple[str, str]], stored: Stored) -> list[str]:
    """Each step told it succeeded recorded its event once; no event of those kinds without a step."""
    have = Counter((e.stream, e.kind) for e in stored.events if e.kind in EVENT_KINDS)
    wrong = [
        f"{s} {k}: done {told[(s, k)]}, recorded {have[(s, k)]}"
        for s, k in set(told) | set(have)
        if told[(s, k)] != have[(s, k)]
    ]
    return _found(("events differ from the steps done", wrong))


def check_inbox(stored: Stored) -> list[str]:
    """Each notification matches a recorded event (its issue, kind and actor) and a watcher of that
    issue, and is not about the person's own change; each person's unread count (the inbox head's
    ``c``) equals their notifications that are unread (no ``rd``, key after the head's read-through)."""
    events = {(e.stream, e.key): e for e in stored.events}
    no_event, no_watcher, own, unlike = [], [], [], []
    for note in stored.notifications:
        stream = f"{note.team}#{note.project}#{note.number}"
        what = f"{note.team} {note.user} {note.project}-{note.number} {note.event_key}"
        event = events.get((stream, note.event_key))
        if event is None:
            no_event.append(what)
        elif (event.kind, event.actor) != (note.kind, note.actor):
            unlike.append(f"{what}: {note.kind} by {note.actor}, the event {event.kind} by {event.actor}")
        if (stream, note.user) not in stored.watchers:
            no_watcher.append(what)
        if note.user == note.actor:
            own.append(what)
    failures = _found(
        ("notification(s) with no event", no_event),
        ("notification(s) unlike their event", unlike),
        ("notification(s) to someone not watching the issue", no_watcher),
        ("notification(s) of a person's own change", own),
    )
    unread: Counter[tuple[str, str]] = Counter()
    for note in stored.notifications:
        head = stored.heads.get((note.team, note.user))
        if not note.read and f"n#{note.event_key}" > (head.read_through if head else ""):
            unread[(note.team, note.user)] += 1
    people = set(unread) | set(stored.heads)
    counted = {who: stored.heads[who].unread if who in stored.heads else 0 for who in people}
    if wrong := [
        f"{t} {u}: count {counted[(t, u)]}, unread {unread[(t, u)]}"
        for t, u in people
        if counted[(t, u)] != unread[(t, u)]
    ]:
        failures.append(f"unread count(s) differ from the unread notifications: {_some(wrong)}")
    return failures


# The kinds whose events reach the watchers' inboxes: the checker's own copy of the registry's
# ``notifies`` (ddbmodels/events/kinds.py; a test holds the two equal). A comment deleted or a file
# detached tells nobody.
NOTIFYING = frozenset(
    {
        "issue.created",
        "issue.edited",
        "issue.status",
        "issue.deleted",
        "comment.added",
        "comment.edited",
        "attachment.added",
    }
)


def implied_watchers(event: Event, *, reporter: str, assignee: str) -> set[str]:
    """Who starts watching an issue because of this event (as tracker/services/inbox/delivery.py says):
    a new issue's reporter and assignee, a new assignee, a commenter and the members a comment mentions."""
    data = event.data
    if event.kind == "issue.created":
        return {name for name in (reporter, assignee) if name}
    if event.kind == "issue.edited":
        change = (data.get("changed") or {}).get("assignee")
        return {change[1]} if change and change[1] else set()
    if event.kind == "comment.added":
        return {event.actor, *(data.get("mentions") or ())}
    if event.kind == "comment.edited":
        return set(data.get("mentions") or ())
    return set()


def _first_assignee(events: Sequence[Event], now: str) -> str:
    """The issue's assignee when it was created: before its first change of assignee, else as it is now."""
    for event in events:
        change = (event.data.get("changed") or {}).get("assignee") if event.kind == "issue.edited" else None
        if change:
            return change[0] or ""
    return now


Owed = tuple[str, str, str, int, str, str, str]  # team, user, project, number, event key, kind, actor


def owed_notifications(stored: Stored, members: Mapping[str, Iterable[str]] | None = None) -> list[Owed]:
    """The notifications each event of a notifying kind owes: one to every watcher of its issue as of that
    event (the people the stream's earlier events and this one made watchers, who are members of the
    team) but its actor; for an edited comment, one to each person it newly mentions.

    Who watched when is read from the events themselves, in key (time) order, since a watcher's item
    says not when it began: the load watches and unwatches nobody by hand, so every watcher is one an
    event implied. ``members``: team → usernames (None: everyone mentioned or named is a member)."""
    streams: dict[str, list[Event]] = defaultdict(list)
    for event in stored.events:
        streams[event.stream].append(event)
    owed: list[Owed] = []
    for stream, events in sorted(streams.items()):
        team, project, number = split_stream(stream)
        events.sort(key=lambda e: e.key)
        issue = stored.issues.get((team, project, number))
        reporter = issue.reporter if issue else ""
        assignee = _first_assignee(events, issue.assignee if issue else "")
        allowed = None if members is None else set(members.get(team, ()))
        watching: set[str] = set()
        for event in events:
            implied = implied_watchers(event, reporter=reporter, assignee=assignee)
            if allowed is not None:
                implied &= allowed
            watching |= implied
            if event.kind in NOTIFYING:
                audience = implied if event.kind == "comment.edited" else watching
                owed += [
                    (team, user, project, number, event.key, event.kind, event.actor)
                    for user in sorted(audience - {event.actor})
                ]
    return owed


def check_fan_out(stored: Stored, members: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The other way round from ``check_inbox``: every notification an event owes (``owed_notifications``)
    is in its person's inbox — a lost fan-out, or one that skipped a watcher, fails."""
    told = {(n.team, n.user, n.project, n.number, n.event_key) for n in stored.notifications}
    missed = [
        f"{team} {user} {project}-{number} {key} ({kind} by {actor})"
        for team, user, project, number, key, kind, actor in owed_notifications(stored, members)
        if (team, user, project, number, key) not in told
    ]
    return _found(("watcher(s) never told of a change (a lost fan-out)", missed))


def check_labels(stored: Stored) -> list[str]:
    """The ``labels`` entries equal what the live issues say: one entry per (issue, label) under its
    status, of the issue's version and title; no stray entry; every label in use registered."""
    want = {
        (team, label, i.status, project, number): i
        for (team, project, number), i in stored.issues.items()
        if not i.deleted
        for label in i.labels
    }
    have = Counter((e.team, e.label, e.status, e.project, e.number) for e in stored.labels)
    failures = []
    if missing := [f"{t}#{lb} {s}#{p}#{n}" for t, lb, s, p, n in want if (t, lb, s, p, n) not in have]:
        failures.append(f"label entr(ies) missing: {_some(missing)}")
    if stray := [f"{t}#{lb} {s}#{p}#{n}" for t, lb, s, p, n in have if (t, lb, s, p, n) not in want]:
        failures.append(f"stray label entr(ies) (no live issue with that label and status): {_some(stray)}")
    stale = [
        f"{e.team}#{e.label} {e.status}#{e.project}#{e.number} v{e.version}, issue v{issue.version}"
        for e in stored.labels
        if (issue := want.get((e.team, e.label, e.status, e.project, e.number))) is not None
        and (e.version, e.title) != (issue.version, issue.title)
    ]
    if stale:
        failures.append(f"label entr(ies) of another version of their issue: {_some(stale)}")
    unregistered = {(t, lb) for t, lb, *_ in want if lb not in stored.registry.get(t, set())}
    if unregistered:
        failures.append(f"label(s) in use but not registered: {_some(f'{t}#{lb}' for t, lb in unregistered)}")
    return failures


def check_search(stored: Stored, teams: Iterable[str]) -> list[str]:
    """The search documents equal the items: one live document per live issue (title, description,
    status, labels, assignee, version) and per comment (body, version); no live document without its item."""
    ours = set(teams)
    docs = {(d.team, d.project, d.number, d.comment_key): d for d in stored.documents if d.team in ours}
    want: dict[tuple[str, str, int, str], tuple[Any, ...]] = {}
    for (team, project, number), i in stored.issues.items():
        if team in ours and not i.deleted:
            labels = f" {' '.join(sorted(i.labels))} " if i.labels else ""
            want[(team, project, number, "")] = (i.title, i.description, i.status, labels, i.assignee, i.version)
    for c in stored.comments:
        if c.issue[0] in ours:
            want[(*c.issue, c.key)] = ("", c.body, "", "", "", c.version)
    missing, wrong = [], []
    for key, fields in want.items():
        d = docs.get(key)
        if d is None or d.gone:
            missing.append(_doc(key))
        elif (d.title, d.body, d.status, d.labels, d.assignee, d.version) != fields:
            wrong.append(f"{_doc(key)} v{d.version}, item v{fields[-1]}")
    extra = [_doc(key) for key, d in docs.items() if not d.gone and key not in want]
    return _found(
        ("search document(s) missing", missing),
        ("search document(s) unlike their item", wrong),
        ("search document(s) with no item", extra),
    )


def _doc(key: tuple[str, str, int, str]) -> str:
    team, project, number, comment = key
    return f"{team}/{project}-{number}" + (f" comment {comment}" if comment else "")


STATUSES = ("open", "in_progress", "resolved", "closed")


def check_counts(stored: Stored) -> list[str]:
    """Each project's counts (its static item's ``ic``) equal its live issues by status."""
    live: Counter[tuple[str, str, str]] = Counter(
        (t, p, i.status) for (t, p, _), i in stored.issues.items() if not i.deleted
    )
    wrong = []
    for (team, project), counts in sorted(stored.projects.items()):
        want = {s: live[(team, project, s)] for s in STATUSES}
        have = {s: counts.get(s, 0) for s in STATUSES}
        if have != want:
            wrong.append(f"{team}/{project} counts {have}, issues {want}")
    return _found(("project count(s) differ from the issues", wrong))
