"""E-mail of notifications: at most one per person per issue per window, listing everything the window gathered.

Four changes to one issue within ``NOTIFY_EMAIL_WINDOW_SECONDS`` are one e-mail listing all four,
sent once even when its task runs twice; a change after that window is the next e-mail.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from pytest_django.fixtures import SettingsWrapper

from ddbmodels import inbox
from ddbmodels import issues as ddb_issues
from ddbmodels.core import capacity
from ddbmodels.core.keys import utcnow
from ddbmodels.events.model import new_sort_key
from ddbmodels.inbox import mail as inbox_mail
from tests.tracker.conftest import World
from tests.tracker.helpers import version_of
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    addressed_fixture,
    create_assigned,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tracker.services import inbox as inbox_services

Run = Callable[[], list[dict[str, Any]]]


def four_changes(world: World, run_queued: Run) -> list[str]:
    """The owner assigns WEB-1 to bob, moves it, comments mentioning him, edits its description: four notifications."""
    owner, bob = world.client_for(world.owner), world.member.username
    create_assigned(world, owner, bob, title="Deploy script")
    owner.post(world.project_url("1/status/"), {"to": "in_progress", "version": version_of(world, 1)})
    owner.post(world.project_url("1/comments/"), {"body": f"@{bob} this is **only** a test"})
    form = {
        "title": "Deploy script",
        "priority": "high",
        "assignee": bob,
        "labels": "",
        "version": version_of(world, 1),
    }
    owner.post(world.project_url("1/edit/"), {**form, "description": "Run `make deploy` twice"})
    reports = run_queued()
    assert [report["delivered"] for report in reports] == [[bob]] * 4
    alice = world.owner.username
    return [
        f"{alice} opened WEB-1 “Deploy script” and assigned it to you",
        f"{alice} moved WEB-1 “Deploy script” from Open to In progress",
        f"{alice} mentioned you on WEB-1: @{bob} this is only a test",
        f"{alice} edited the description of WEB-1 “Deploy script”: “Run make deploy twice”",
    ]


def test_four_changes_in_one_window_are_one_email_listing_all_four(
    addressed: World, run_queued: Run, digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    texts = four_changes(world, run_queued)

    assert mail.outbox == []
    ((task, countdown),) = digests.scheduled  # one digest for the four: the first opened the window
    assert countdown == 300
    assert (task["username"], task["address"], task["project_key"], task["number"]) == (
        bob,
        f"{bob}@example.com",
        "WEB",
        1,
    )

    with capacity.measure() as meter:
        assert digests.run() == [{"sent": 1, "already": False, "notifications": 4}]
    # the person's setting (consistent, never the cache: R3-7), then read, claim, take
    assert meter.by_operation == {"GetItem": 2, "Query": 1, "UpdateItem": 1, "DeleteItem": 1}

    (message,) = mail.outbox
    assert message.to == [f"{bob}@example.com"]
    assert message.subject == "4 updates on WEB-1 “Deploy script”"
    listed = [line.split("UTC  ", 1)[1] for line in message.body.splitlines() if "UTC  " in line]
    assert listed == texts  # oldest first, each once
    assert f"/t/{world.slug}/p/WEB/1/" in message.body
    assert "at most one e-mail per issue every 5 minutes" in message.body
    assert "**" not in message.body


def test_the_digest_task_run_twice_sends_one_email(addressed: World, run_queued: Run, digests: Digests) -> None:
    four_changes(addressed, run_queued)
    ((task, _),) = digests.scheduled
    digests.scheduled.append((dict(task), 0))  # redelivered (a worker lost, a retry)

    assert [report["sent"] for report in digests.run()] == [1, 0]
    assert len(mail.outbox) == 1


def test_a_change_after_the_window_is_the_next_email(addressed: World, run_queued: Run, digests: Digests) -> None:
    world, bob = addressed, addressed.member.username
    four_changes(world, run_queued)
    digests.run()
    owner = world.client_for(world.owner)

    owner.post(world.project_url("1/status/"), {"to": "closed", "version": version_of(world, 1)})
    run_queued()

    ((_, countdown),) = digests.scheduled  # a new window, its own digest
    assert countdown == 300
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 1}]
    _, second = mail.outbox
    assert second.subject == f"{world.owner.username} moved WEB-1 “Deploy script” from In progress to Closed"
    assert second.body.count("UTC  ") == 1  # only what the second window gathered
    assert [m.to for m in mail.outbox] == [[f"{bob}@example.com"]] * 2


def test_each_person_and_issue_has_its_own_window(addressed: World, run_queued: Run, digests: Digests) -> None:
    world, bob, carol = addressed, addressed.member.username, addressed.viewer.username
    owner = world.client_for(world.owner)
    create_assigned(world, owner, bob, title="One")
    create_assigned(world, owner, bob, title="Two")
    run_queued()
    world.client_for(world.viewer).post(world.project_url("1/watch/"))
    owner.post(world.project_url("1/status/"), {"to": "in_progress", "version": version_of(world, 1)})
    run_queued()

    assert sorted((task["username"], task["number"]) for task, _ in digests.scheduled) == [
        (bob, 1),
        (bob, 2),
        (carol, 1),
    ]
    assert [report["notifications"] for report in digests.run()] == [2, 1, 1]
    assert sorted((m.to[0], m.subject.split("“")[0]) for m in mail.outbox) == [
        (f"{bob}@example.com", "2 updates on WEB-1 "),
        (f"{bob}@example.com", f"{world.owner.username} opened WEB-2 "),
        (f"{carol}@example.com", f"{world.owner.username} moved WEB-1 "),
    ]


def test_a_window_whose_digest_was_lost_is_sent_by_the_next_notification(
    addressed: World, run_queued: Run, digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    long_ago = utcnow() - timedelta(hours=1)
    earlier = new_sort_key(long_ago)
    inbox.deliver(
        tenant=world.slug,
        event_key=earlier,
        notes=[inbox.Note(username=bob, project_key="WEB", number=1, actor="x", kind="issue.status", text="Earlier")],
        when=long_ago,
    )
    lost = inbox_mail.window_add(
        tenant=world.slug, username=bob, project_key="WEB", number=1, event_key=earlier, now=long_ago
    )
    assert lost.opened  # and its task never reached the broker

    create_assigned(world, world.client_for(world.owner), bob)
    run_queued()

    ((task, countdown),) = digests.scheduled
    assert (task["start"], countdown) == (lost.start, 0)  # the overdue window, at once
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 2}]


def test_a_notification_added_while_the_digest_reads_is_in_that_email(
    addressed: World, run_queued: Run, digests: Digests, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob, title="Race")
    run_queued()
    assert len(digests.scheduled) == 1
    read, reads = inbox.notifications_of, []

    def read_then_a_change_lands(**kwargs: Any) -> list[inbox.Notification]:
        found = read(**kwargs)
        reads.append(len(found))
        if len(reads) == 1:  # between the digest's read and its claim, one more notification joins
            key = new_sort_key(utcnow())
            note = inbox.Note(username=bob, project_key="WEB", number=1, actor="x", kind="issue.status", text="Late")
            inbox.deliver(tenant=world.slug, event_key=key, notes=[note])
            assert not inbox_mail.window_add(
                tenant=world.slug, username=bob, project_key="WEB", number=1, event_key=key
            ).opened
        return found

    monkeypatch.setattr(inbox, "notifications_of", read_then_a_change_lands)  # as the digest calls it
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 2}]
    assert reads == [1, 1]  # the late one read after the claim
    assert mail.outbox[0].body.count("UTC  ") == 2


def test_a_window_of_zero_mails_at_once(
    addressed: World, run_queued: Run, digests: Digests, settings: SettingsWrapper
) -> None:
    settings.NOTIFY_EMAIL_WINDOW_SECONDS = 0
    create_assigned(addressed, addressed.client_for(addressed.owner), addressed.member.username)
    run_queued()
    assert [countdown for _, countdown in digests.scheduled] == [0]


def test_the_subject_of_one_and_of_several() -> None:
    def note(text: str) -> inbox.Notification:
        return inbox.Notification("2026-11-25T10:00:00.000Z#0000abcd", "WEB-3", "WEB", 3, "a", "k", text, True)

    assert inbox_services.digest_subject([note("alice moved WEB-3")], reference="WEB-3", title="T") == (
        "alice moved WEB-3"
    )
    assert inbox_services.digest_subject([note("a"), note("b")], reference="WEB-3", title="T") == (
        "2 updates on WEB-3 “T”"
    )


def test_a_digest_the_mail_server_refused_is_sent_with_the_next_window(
    addressed: World, run_queued: Run, digests: Digests, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = four_changes(addressed, run_queued)
    real_send = inbox_services.digests.send_mail

    def refused(**message: Any) -> int:
        raise ConnectionRefusedError("the mail server is away")

    monkeypatch.setattr(inbox_services.digests, "send_mail", refused)
    assert digests.run() == [{"sent": 0, "already": False, "notifications": 4}]
    assert mail.outbox == []
    ((_, countdown),) = digests.scheduled  # the four went back into a new window, scheduled again
    assert countdown == 300

    monkeypatch.setattr(inbox_services.digests, "send_mail", real_send)
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 4}]
    (message,) = mail.outbox
    assert [line.split("UTC  ", 1)[1] for line in message.body.splitlines() if "UTC  " in line] == texts


def test_a_subject_is_one_line_whatever_the_title_holds() -> None:
    note = inbox.Notification(
        event_key="2026-11-22T10:10:00.000Z#00000000",
        reference="WEB-1",
        project_key="WEB",
        number=1,
        actor="alice",
        kind="issue.status",
        text="alice moved WEB-1 “Line one\nline two” from Open to Closed",
        unread=True,
    )
    for subject in (
        inbox_services.digest_subject([note], reference="WEB-1", title="Line one\nline two"),
        inbox_services.digest_subject([note, note], reference="WEB-1", title="Line one\r\nline two"),
    ):
        assert "\n" not in subject
        assert "\r" not in subject


def test_an_issue_created_with_a_line_break_in_its_title_gets_its_email(
    addressed: World, run_queued: Run, digests: Digests
) -> None:
    """Issue 20, finding 10: the title is stored on one line (the break becomes a space) and its e-mail is sent."""
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob, title="a\r\nb\nc")
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="WEB", number=1)
    assert issue is not None
    assert issue.title == "a b c"
    assert [report["delivered"] for report in run_queued()] == [[bob]]
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 1}]
    (message,) = mail.outbox
    assert message.subject == f"{world.owner.username} opened WEB-1 “a b c” and assigned it to you"


def test_an_edit_that_puts_a_line_break_in_a_title_stores_one_line(addressed: World, run_queued: Run) -> None:
    world, owner = addressed, addressed.client_for(addressed.owner)
    create_assigned(world, owner, addressed.member.username, title="Deploy script")
    form = {"title": "Deploy\nscript\rnow", "priority": "high", "labels": "", "version": version_of(world, 1)}
    assert owner.post(world.project_url("1/edit/"), {**form, "assignee": addressed.member.username}).status_code == 302
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="WEB", number=1)
    assert issue is not None
    assert issue.title == "Deploy script now"


def test_an_imported_issue_with_a_line_break_in_its_title_gets_its_email(
    addressed: World, run_queued: Run, digests: Digests, tmp_path: Path
) -> None:
    """Issue 20, finding 10, through an import: the title is stored on one line, and a change to it is e-mailed."""
    world, bob = addressed, addressed.member.username
    export = [
        {
            "number": 1,
            "title": "one\r\ntwo",
            "assignee": {"login": bob},
            "created_at": "2026-11-02T09:30:00Z",
        }
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    call_command("import_issues", world.slug, "--format", "github", "--project", f"IMP={path}", stdout=io.StringIO())
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="IMP", number=1)
    assert issue is not None
    assert issue.title == "one two"
    commented = world.client_for(world.member).post(world.url("p/IMP/1/comments/"), {"body": "On it"})
    assert commented.status_code == 302  # bob watches the issue now
    owner = world.client_for(world.owner)
    version = int(ddb_issues.issue_get(tenant=world.slug, project_key="IMP", number=1).version)  # type: ignore[union-attr]
    assert owner.post(world.url("p/IMP/1/status/"), {"to": "in_progress", "version": version}).status_code == 302
    assert [report["delivered"] for report in run_queued()][-1] == [bob]
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 1}]
    (message,) = mail.outbox
    assert message.subject == f"{world.owner.username} moved IMP-1 “one two” from Open to In progress"
