"""Queueing background work: a broker that is down is logged (the change stands); a bug is an error.

Each caller of ``tracker.enqueue`` looks its task up before it queues and catches only
``enqueue.BROKER_ERRORS`` around ``apply_async``: a task name the seam does not know (KeyError), a
``tracker.tasks`` that fails to import, or a message that cannot be encoded is raised, not logged as
"could not queue" (and does not pause Redis, which is fine).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import kombu.exceptions
import pytest
from pytest_django.fixtures import SettingsWrapper

from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tracker import enqueue, optional_redis
from tracker.search import indexing
from tracker.services import issues as issue_services
from tracker.services import offboarding
from tracker.services.admin import jobs
from tracker.services.inbox import delivery, digests


def superuser() -> Any:
    """The admin who starts the jobs (each start is audited under their name)."""
    from django.contrib.auth.models import User

    return User.objects.get_or_create(username="queue-root", defaults={"is_superuser": True, "is_staff": True})[0]


@pytest.fixture
def issue(world: World) -> IssueItem:
    return new_issue(world, "Walrus", assignee=world.member.username)


@pytest.fixture
def mail_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mail window that has just opened (its first notification schedules the digest)."""
    window = SimpleNamespace(opened=True, opened_at=utcnow(), start="2026-01-01T00:00:00")
    monkeypatch.setattr(digests.inbox, "window_add", lambda **kwargs: window)


def fan_out(issue: IssueItem) -> None:
    delivery.fan_out_later(issue, kind=Kind.ISSUE_CREATED, actor=issue.reporter, data={}, event_key=None)


def index(issue: IssueItem) -> None:
    indexing.index_later(issue, kind=Kind.ISSUE_CREATED, data={})


def counts(issue: IssueItem) -> None:
    project = SimpleNamespace(
        pk=f"{issue.tenant}#{issue.project_key}", tenant=issue.tenant, project_key=issue.project_key
    )
    issue_services.schedule_counts(project)  # type: ignore[arg-type]


def digest(issue: IssueItem) -> None:
    digests.mail_later(
        tenant=issue.tenant,
        username="bob",
        address="bob@example.com",
        project_key=issue.project_key,
        number=int(issue.number),
        event_key="e",
        title="t",
    )


# (what queues, the task it asks for, what it logs when the broker is down, whether that pauses Redis)
LOGGED: list[tuple[Callable[[IssueItem], None], str, str, bool]] = [
    (fan_out, enqueue.FAN_OUT_EVENT, "could not queue the notifications of issue.created", True),
    (index, enqueue.SEARCH_INDEX_CHANGE, "could not queue the search index of issue.created", True),
    (counts, enqueue.REFRESH_PROJECT_COUNTS, "could not queue counts refresh", False),
    (digest, enqueue.SEND_NOTIFICATION_DIGEST, "could not queue the e-mail of WEB-1 to bob", False),
]
IDS = ["fan_out", "search_index", "counts", "digest"]


class Refusing:
    """A task whose ``apply_async`` and ``delay`` raise ``error``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def apply_async(self, *args: Any, **kwargs: Any) -> None:
        raise self.error

    def delay(self, *args: Any, **kwargs: Any) -> None:
        raise self.error


@pytest.fixture(autouse=True)
def _queueing(settings: SettingsWrapper, mail_window: None) -> None:
    settings.SEARCH_INDEX_QUEUE = True


@pytest.mark.parametrize(("queue", "name", "logged", "pauses"), LOGGED, ids=IDS)
@pytest.mark.parametrize(
    "bug", [KeyError("tracker.tasks.no_such_task"), ImportError("tracker.tasks failed to import")], ids=repr
)
def test_a_task_the_seam_cannot_find_is_an_error_not_a_queue_that_is_down(
    queue: Callable[[IssueItem], None],
    issue: IssueItem,
    name: str,
    logged: str,
    pauses: bool,
    bug: Exception,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def lookup(asked: str) -> Any:
        assert asked == name
        raise bug

    monkeypatch.setattr(enqueue, "task", lookup)
    with pytest.raises(type(bug)):
        queue(issue)
    assert "could not queue" not in caplog.text
    assert not optional_redis.paused()  # Redis is fine


@pytest.mark.parametrize(("queue", "name", "logged", "pauses"), LOGGED, ids=IDS)
def test_a_message_that_cannot_be_encoded_is_an_error(
    queue: Callable[[IssueItem], None],
    issue: IssueItem,
    name: str,
    logged: str,
    pauses: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(enqueue, "task", lambda asked: Refusing(kombu.exceptions.EncodeError("not JSON")))
    with pytest.raises(kombu.exceptions.EncodeError):
        queue(issue)
    assert not optional_redis.paused()


@pytest.mark.parametrize(("queue", "name", "logged", "pauses"), LOGGED, ids=IDS)
@pytest.mark.parametrize(
    "down",
    [kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379."), ConnectionRefusedError(111)],
    ids=repr,
)
def test_a_broker_that_is_down_is_logged_and_the_request_goes_on(
    queue: Callable[[IssueItem], None],
    issue: IssueItem,
    name: str,
    logged: str,
    pauses: bool,
    down: Exception,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(enqueue, "task", lambda asked: Refusing(down))
    queue(issue)  # raises nothing
    assert logged in caplog.text
    assert optional_redis.paused() is pauses


@pytest.mark.parametrize(
    "start",
    [
        lambda: offboarding.offboarding_start(slug="acme"),
        lambda: jobs.job_start(task=enqueue.DISTINCT_KEYS, params={}, by=superuser()),
        lambda: jobs.reconcile_attachments_start(by=superuser()),
        lambda: jobs.offboarding_queue(slug="acme", by=superuser()),
    ],
    ids=["offboarding", "job", "reconcile", "offboard-action"],
)
def test_jobs_an_admin_starts_raise_a_missing_task_and_say_a_down_broker(
    start: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(asked: str) -> Any:
        raise KeyError(asked)

    monkeypatch.setattr(enqueue, "task", missing)
    with pytest.raises(KeyError):
        start()
    monkeypatch.setattr(enqueue, "task", lambda asked: Refusing(kombu.exceptions.OperationalError("down")))
    with pytest.raises(Unavailable) as raised:
        start()
    assert "not answering" in str(raised.value)
