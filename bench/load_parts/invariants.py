"""What must hold after the load, checked against what DynamoDB stores; each check returns its failures.

The ``check_*`` functions are plain Python over what the users were told (the ledger) and what
was read back (``stored``), so the tests can hand them a gap or a duplicate; ``checks.read_stored``
does the reading, through ``ddbmodels``' public functions (consistent where it matters).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Project = tuple[str, str]  # (team, project key)
Issue = tuple[str, str, int]  # (team, project key, number)
SHOWN = 10  # examples named in a failure


def _some(values: Iterable[Any]) -> str:
    listed = sorted(values)
    more = f" … (+{len(listed) - SHOWN})" if len(listed) > SHOWN else ""
    return ", ".join(map(str, listed[:SHOWN])) + more


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


def check_created(
    created: Sequence[tuple[str, str, int, str]], titles: Mapping[Project, Mapping[int, str]]
) -> list[str]:
    """Every create the users were told succeeded is stored exactly once, under the number they were told.

    ``created``: (team, project, number, title) per successful create (titles are unique per create);
    ``titles``: each project's stored issues, number → title.
    """
    failures = []
    told = Counter((team, key, number) for team, key, number, _ in created)
    shared = [f"{t}/{k}-{n}" for (t, k, n), count in told.items() if count > 1]
    if shared:
        failures.append(f"two creates were told the same number: {_some(shared)}")
    lost = [
        f"{team}/{key}-{number}"
        for team, key, number, title in created
        if titles.get((team, key), {}).get(number) != title
    ]
    if lost:
        failures.append(f"created but not stored under its number (lost or overwritten): {_some(lost)}")
    made = {(team, key, title) for team, key, _, title in created}
    stored_made = Counter(
        (team, key, title)
        for (team, key), numbers in titles.items()
        for title in numbers.values()
        if (team, key, title) in made
    )
    twice = [f"{t}/{k} {title!r}" for (t, k, title), count in stored_made.items() if count > 1]
    if twice:
        failures.append(f"created once, stored more than once: {_some(twice)}")
    return failures


def check_resubmits(resubmits: Sequence[Mapping[str, str]]) -> list[str]:
    """A form sent twice (same idempotency key) lands where the first did, and makes nothing new."""
    wrong = [
        f"{r['label']}: first {r['first']}, again {r['second']} ({r['status']})"
        for r in resubmits
        if r["status"] != "302" or r["first"] != r["second"]
    ]
    return [f"a form sent twice did not return its first result: {_some(wrong)}"] if wrong else []


def check_comments(posted: Mapping[Issue, int], stored: Mapping[Issue, int]) -> list[str]:
    """Each issue holds as many load comments as were posted (none lost, none doubled)."""
    wrong = [
        f"{t}/{k}-{n}: posted {count}, stored {stored.get((t, k, n), 0)}"
        for (t, k, n), count in posted.items()
        if stored.get((t, k, n), 0) != count
    ]
    return [f"comments lost or doubled: {_some(wrong)}"] if wrong else []


def check_orders(
    placed: Sequence[tuple[str, int, str, int]], stored: Mapping[str, Sequence[tuple[int, str, int]]]
) -> list[str]:
    """Order numbers unique across all teams, and every order placed is stored with what was ordered.

    ``placed``: (team, number, product, quantity) told to the users; ``stored``: each team's orders
    as (number, product, quantity).
    """
    failures = []
    told = Counter(number for _, number, _, _ in placed)
    if twice := [n for n, c in told.items() if c > 1]:
        failures.append(f"order number(s) told to two orders: {_some(twice)}")
    every = Counter(number for orders in stored.values() for number, _, _ in orders)
    if twice := [n for n, c in every.items() if c > 1]:
        failures.append(f"order number(s) stored twice: {_some(twice)}")
    held = {
        (team, number): (product, quantity) for team, orders in stored.items() for number, product, quantity in orders
    }
    missing = [
        f"{team} #{number}"
        for team, number, product, quantity in placed
        if held.get((team, number)) != (product, quantity)
    ]
    if missing:
        failures.append(f"placed but not stored as ordered: {_some(missing)}")
    return failures


def check_scores(awarded: Mapping[tuple[str, str], int], board: Mapping[tuple[str, str], int]) -> list[str]:
    """Each member's leaderboard score equals the points of the issues they resolved in the load."""
    keys = set(awarded) | {k for k, v in board.items() if v}
    wrong = [
        f"{team} {user}: awarded {awarded.get((team, user), 0)}, board {board.get((team, user), 0)}"
        for team, user in sorted(keys)
        if awarded.get((team, user), 0) != board.get((team, user), 0)
    ]
    return [f"leaderboard totals differ from the awards made: {_some(wrong)}"] if wrong else []


def check_attachments(
    made: Sequence[Mapping[str, Any]], stored: Mapping[str, Mapping[str, Any]], in_flight: Iterable[str]
) -> list[str]:
    """Every attachment in the state its flow left it (Attached, or Detached after a detach), its bytes intact;
    none of them left in flight."""
    failures = []
    wrong = []
    for a in made:
        got = stored.get(a["id"])
        if got is None:
            wrong.append(f"{a['id']} missing")
        elif got["state"] != a["state"]:
            wrong.append(f"{a['id']} {got['state']}, expected {a['state']}")
        elif (got["size"], got["sha256"]) != (a["size"], a["sha256"]):
            wrong.append(f"{a['id']} stored {got['size']} B, sent {a['size']} B (or other bytes)")
    if wrong:
        failures.append(f"attachments not as their flow left them: {_some(wrong)}")
    ours = {a["id"] for a in made}
    if stuck := [i for i in in_flight if i in ours]:
        failures.append(f"attachments still in flight: {_some(stuck)}")
    return failures


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
