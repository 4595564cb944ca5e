"""What a load run shares: the skew, the load's clock, and the ledger of what the users were told succeeded.

Everything that succeeded is written down in the ``Ledger``; the invariants compare it with
what DynamoDB holds afterwards.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from load_parts.client import Failed, Recorder
from load_parts.teams import Layout


def zipf_weights(count: int, s: float) -> list[float]:
    """Rank k (1-based) weighs 1/k^s, normalised to sum 1."""
    raw = [1 / (rank**s) for rank in range(1, count + 1)]
    total = sum(raw)
    return [w / total for w in raw]


@dataclass
class CreatedIssue:
    """An issue a user was told they created, and the status they were last told it has."""

    team: str
    project: str
    number: int
    title: str
    by: str
    priority: str
    labels: frozenset[str] = frozenset()
    status: str = "open"

    @property
    def stream(self) -> str:
        return f"{self.team}#{self.project}#{self.number}"


@dataclass(frozen=True)
class BusyCreate:
    """A create answered "busy" (503): it must have written nothing."""

    team: str
    project: str
    title: str
    key: str  # the form's idempotency key (its ULID): no record of it may exist


@dataclass
class Ledger:
    """What the users were told succeeded (thread-safe)."""

    issues: list[CreatedIssue] = field(default_factory=list)
    comments: Counter[tuple[str, str, int]] = field(default_factory=Counter)
    comment_bodies: list[tuple[tuple[str, str, int], str]] = field(default_factory=list)  # (issue, body) told posted
    status_changes: list[tuple[str, str, int, str]] = field(default_factory=list)  # team, project, number, to
    orders: list[tuple[str, int, str, int]] = field(default_factory=list)  # team, number, product, quantity
    awards: Counter[tuple[str, str]] = field(default_factory=Counter)  # (team, user) → points
    resolved: list[tuple[str, str, int]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    resubmits: list[dict[str, str]] = field(default_factory=list)  # label, first, second
    jobs: list[dict[str, Any]] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)  # a virtual user's own bug (not the server's)
    team_steps: Counter[str] = field(default_factory=Counter)  # members' steps by team: the skew as it came out
    failed_steps: Counter[str] = field(default_factory=Counter)  # steps the server's answer stopped, by why
    busy_creates: list[BusyCreate] = field(default_factory=list)  # creates answered 503: nothing written
    inbox: Counter[str] = field(default_factory=Counter)  # inbox pages seen, notifications opened, marked all read
    top: dict[tuple[str, str], int] = field(default_factory=dict)  # (team, project) → highest number known
    users_done: float = 0.0  # seconds into the load when the last virtual user took its last step
    lock: threading.Lock = field(default_factory=threading.Lock)

    def user_done(self, at: float) -> None:
        with self.lock:
            self.users_done = max(self.users_done, at)

    @property
    def busy(self) -> int:
        """Create forms answered "busy" (503: the sequence gave up, or DynamoDB throttled)."""
        return len(self.busy_creates)

    def step_failed(self, failure: Failed) -> None:
        with self.lock:
            self.failed_steps[str(failure)] += 1

    def known_top(self, team: str, project: str) -> int:
        with self.lock:
            return self.top.get((team, project), 0)

    def add_issue(self, issue: CreatedIssue) -> None:
        with self.lock:
            self.issues.append(issue)
            key = (issue.team, issue.project)
            self.top[key] = max(self.top.get(key, 0), issue.number)


@dataclass
class Load:
    """What every virtual user shares."""

    base: str
    layout: Layout
    recorder: Recorder
    ledger: Ledger
    zipf_s: float
    seed: int
    seconds: float
    throttle_share: float = 0.0  # of the creates, the share sent to be throttled (``stack.Throttle``)
    start: threading.Event = field(default_factory=threading.Event)
    began: float = 0.0

    @property
    def deadline(self) -> float:
        return self.began + self.seconds

    def running(self) -> bool:
        return time.monotonic() < self.deadline


def guarded(load: Load, name: str, work: Callable[[], None]) -> Callable[[], None]:
    """``work`` in a thread: a bug in the virtual user is written down, never lost in a thread."""

    def run() -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 (reported as a failed run, with its traceback)
            with load.ledger.lock:
                load.ledger.crashes.append(f"{name}: {traceback.format_exc()}")

    return run
