"""Helpers of the inbox tests: fan-outs and e-mail digests kept and run in this process, people with
addresses; for tests that count a page's DynamoDB calls, the header's unread count set apart.

The fixtures are named (``queued``, ``run_queued``, ``digests`` — autouse where imported —
``addressed``); a test module imports their functions to use them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client

from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tracker import tasks
from tracker.services.addresses import address_mark_confirmed

HEADER_PATTERNS = {
    "inbox.unread": "GetItem",  # the header's count: one GetItem of the inbox head (0.5 RCU)
    "preferences.views_mine": "Query",  # the header's Views menu: the person's views (0.5 RCU, cached)
    "preferences.views_shared": "Query",  # … and the team's shared ones (0.5 RCU, cached)
}


def without_header(meter: capacity.CapacityMeter) -> Counter[str]:
    """The calls by operation, less the header's unread count and Views menu (read on a cold cache, 0.5 RCU each)."""
    calls = Counter(meter.by_operation)
    for pattern, operation in HEADER_PATTERNS.items():
        totals = meter.by_pattern.get(pattern)
        if totals is not None:
            calls[operation] -= totals.requests
    return +calls  # drops the operations left at zero


Queued = list[dict[str, Any]]


@pytest.fixture(name="queued")
def queued_fixture(monkeypatch: pytest.MonkeyPatch) -> Queued:
    """The fan-outs queued by the requests of the test, kept instead of sent to the broker."""
    events: Queued = []

    def keep(*args: Any, kwargs: dict[str, Any], **options: Any) -> None:
        events.append(kwargs["event"])

    monkeypatch.setattr(tasks.fan_out_event, "apply_async", keep)
    return events


@pytest.fixture(name="run_queued")
def run_queued_fixture(queued: Queued) -> Callable[[], list[dict[str, Any]]]:
    """Run every queued fan-out as the worker does (``.apply()``, in this process); their reports."""

    def run() -> list[dict[str, Any]]:
        reports = [tasks.fan_out_event.apply(kwargs={"event": event}).get() for event in queued]
        queued.clear()
        return reports

    return run


@dataclass
class Digests:
    """The e-mail digests the fan-outs scheduled (kept instead of sent to the broker), and running them."""

    scheduled: list[tuple[dict[str, Any], int]] = field(default_factory=list)  # (the task's kwargs, countdown)

    def run(self) -> list[dict[str, Any]]:
        """Run every scheduled digest as the worker does when its countdown is over; their reports."""
        due, self.scheduled[:] = list(self.scheduled), []  # a digest run may schedule the next window's
        return [tasks.send_notification_digest.apply(kwargs=kwargs).get() for kwargs, _ in due]


@pytest.fixture(name="digests", autouse=True)
def digests_fixture(monkeypatch: pytest.MonkeyPatch) -> Digests:
    kept = Digests()

    def keep(*args: Any, kwargs: dict[str, Any], countdown: int = 0, **options: Any) -> None:
        kept.scheduled.append((kwargs, countdown))

    monkeypatch.setattr(tasks.send_notification_digest, "apply_async", keep)
    return kept


@pytest.fixture(name="addressed")
def addressed_fixture(world: World) -> World:
    for user in (world.owner, world.member, world.viewer):
        user.email = f"{user.username}@example.com"
        user.save()
        address_mark_confirmed(user=user)  # only a confirmed address is mailed
    return world


def create_assigned(world: World, client: Client, assignee: str, title: str = "Fix the login") -> str:
    response = client.post(world.project_url("new/"), {"title": title, "priority": "high", "assignee": assignee})
    assert response.status_code == 302
    return str(response["Location"])
