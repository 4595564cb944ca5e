"""Deleted means deleted (issue 20, finding 9): a comment's words leave its events and notifications; an issue's
comments, attachments, files, history and notifications' words go with it, its number stays taken."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ddbmodels import attachments, comments, events, inbox
from ddbmodels import issues as ddb_issues
from ddbmodels.comments import CommentItem
from ddbmodels.core import capacity
from ddbmodels.core.keys import issue_stream, utcnow
from ddbmodels.issues import IssueItem
from tests.tracker.attachment_helpers import begin_attach, files_in, items_of, upload
from tests.tracker.conftest import World
from tests.tracker.helpers import load, text, version_of
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    addressed_fixture,
    create_assigned,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tracker.selectors import issues as selectors
from tracker.services import deleting
from tracker.views import comments as comment_views

SECRET = "the vault code is 4417-PLUM"
EDITED = "the vault code is really 9903-FIG"


def stored_comments(world: World, number: int) -> list[CommentItem]:
    return list(CommentItem.query(comments.issue_stream(world.slug, "WEB", number), consistent_read=True))


def stream_events(world: World, number: int) -> list[events.Event]:
    return events.stream_events_all(stream=issue_stream(world.slug, "WEB", number))


def everything_said(world: World, number: int, *people: str) -> str:
    """Every event of the issue and every notification of these people, as one text to search."""
    said = [json.dumps([e.kind, e.data], default=str) for e in stream_events(world, number)]
    for name in people:
        head = inbox.head_get(tenant=world.slug, username=name)
        page = inbox.notification_page(tenant=world.slug, username=name, read_through=head.read_through)
        said += [f"{n.kind} {n.text}" for n in page.items]
    return "\n".join(said)


def comment_url(world: World, comment: CommentItem, action: str, number: int = 1) -> str:
    return world.project_url(f"{number}/comments/{comments.comment_id(comment.key)}/{action}/")


def test_a_deleted_comments_words_leave_its_events_and_the_notifications_that_quoted_them(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, owner, member = addressed, addressed.owner.username, addressed.member.username
    owner_client, member_client = world.client_for(world.owner), world.client_for(world.member)
    create_assigned(world, owner_client, member, title="Rotate the keys")  # WEB-1: owner and member watch
    create_assigned(world, owner_client, member, title="Another one")  # WEB-2: untouched
    member_client.post(world.project_url("1/comments/"), {"body": SECRET})
    member_client.post(world.project_url("2/comments/"), {"body": "kept on WEB-2: 1234-KEEP"})
    run_queued()
    (comment,) = stored_comments(world, 1)
    member_client.post(comment_url(world, comment, "edit"), {"body": f"@{owner} {EDITED}", "version": 1})
    run_queued()
    before = everything_said(world, 1, owner)
    assert "4417-PLUM" in before  # the events and the owner's notifications quote it
    assert "9903-FIG" in before

    gone = member_client.post(comment_url(world, comment, "delete"), {"version": 2})
    run_queued()

    assert gone.status_code == 302
    assert stored_comments(world, 1) == []
    after = everything_said(world, 1, owner, member)
    assert "4417-PLUM" not in after
    assert "9903-FIG" not in after
    kinds = [e.kind for e in stream_events(world, 1)]
    assert kinds.count("comment.added") == 1  # the events stay, wordless
    assert kinds.count("comment.edited") == 1
    assert f"{member} commented on WEB-1; the comment was deleted" in after
    history = text(owner_client.get(world.project_url("1/")))
    assert f"commented (deleted by {member})" in history
    assert "1234-KEEP" in everything_said(world, 2, owner)  # another issue's comment keeps its words
    assert [c.body for c in stored_comments(world, 2)] == ["kept on WEB-2: 1234-KEEP"]


def test_deleting_an_issue_removes_its_comments_files_history_and_notifications_words_and_keeps_its_number(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], media: Path
) -> None:
    world, owner, member = addressed, addressed.owner.username, addressed.member.username
    owner_client, member_client = world.client_for(world.owner), world.client_for(world.member)
    create_assigned(world, owner_client, member, title="Payroll PLUM-TITLE")  # WEB-1
    create_assigned(world, owner_client, member, title="Stays GRAPE-TITLE")  # WEB-2
    for number in (1, 2):
        member_client.post(world.project_url(f"{number}/comments/"), {"body": f"words of WEB-{number}"})
        assert upload(member_client, world, b"file body", f"plan-{number}.txt", number=number).status_code == 302
    owner_client.post(
        world.project_url("1/edit/"),
        {"title": "Payroll PLUM-RENAMED", "priority": "high", "assignee": member, "version": version_of(world, 1)},
    )
    run_queued()
    assert "PLUM-TITLE" in everything_said(world, 1, member)
    assert len(files_in(media)) == 2

    confirm = owner_client.get(world.project_url("1/delete/"))
    assert confirm.status_code == 200
    page = text(confirm)
    for said in ("1 comment;", "1 attached file (plan-1.txt)", "stays taken and is never given to another issue"):
        assert said in page
    assert version_of(world, 1) == 2  # asking changed nothing
    assert len(stored_comments(world, 1)) == 1

    deleted = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})
    run_queued()

    assert deleted.status_code == 302
    tombstone = load(world, 1)
    assert tombstone is not None
    assert tombstone.is_tombstone
    assert stored_comments(world, 1) == []
    assert items_of(world, 1) == []
    (left,) = files_in(media)
    assert "/WEB/2/" in left
    assert [e.kind for e in stream_events(world, 1)] == ["issue.deleted"]
    said = everything_said(world, 1, owner, member)
    for words in ("PLUM", "words of WEB-1", "plan-1"):
        assert words not in said
    assert "WEB-1 was deleted" in said

    created = owner_client.post(world.project_url("new/"), {"title": "Next", "priority": "low"})
    assert created["Location"].startswith(world.project_url("3/"))  # 1 is never given again

    assert [c.body for c in stored_comments(world, 2)] == ["words of WEB-2"]  # WEB-2 untouched
    assert len(items_of(world, 2)) == 1
    assert "GRAPE-TITLE" in everything_said(world, 2, member)
    other = load(world, 2)
    assert other is not None
    assert not other.is_tombstone


def test_a_comment_deleted_before_its_notifications_went_out_is_not_quoted_by_them(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, owner, member = addressed, addressed.owner.username, addressed.member.username
    member_client = world.client_for(world.member)
    create_assigned(world, world.client_for(world.owner), member, title="Rotate the keys")
    run_queued()
    member_client.post(world.project_url("1/comments/"), {"body": SECRET})  # its fan-out waits in the queue
    (comment,) = stored_comments(world, 1)
    member_client.post(comment_url(world, comment, "delete"), {"version": 1})

    run_queued()  # the worker gets to it only now

    said = everything_said(world, 1, owner)
    assert "4417-PLUM" not in said
    assert f"{member} commented on WEB-1" in said


def test_what_forgetting_a_comment_costs_is_what_the_docstring_says(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    """tracker/services/deleting.py's measured figure: a comment with one event in a team of 3."""
    world = addressed
    member_client = world.client_for(world.member)
    create_assigned(world, world.client_for(world.owner), world.member.username)
    member_client.post(world.project_url("1/comments/"), {"body": "x" * 200})
    run_queued()
    (comment,) = stored_comments(world, 1)
    tables = len(events.list_event_tables())
    with capacity.measure() as meter:
        member_client.post(comment_url(world, comment, "delete"), {"version": 1})
    found, redacted, asked = (meter.by_pattern[p] for p in ("events.stream_all", "events.redact", "inbox.redact"))
    # ListTables, one consistent Query per events table. The table holding the event answers 1 RCU;
    # another period's table (an earlier test may have made next month's) is empty, which DynamoDB
    # Local reports as 0 and AWS as at most 1, so the whole is between 1 and the table count.
    assert found.requests == 1 + tables
    assert 1 <= found.rcu <= tables
    assert (redacted.wcu, redacted.requests) == (2, 1)  # the event + its by_day entry
    assert asked.requests == 3  # each member asked once (the owner had one: Local reports only that one)
    assert asked.wcu == 1
    assert meter.by_pattern["inbox.watchers"].rcu == 0.5


def test_a_delete_cut_short_by_an_upload_in_flight_is_a_503_that_keeps_the_issue_and_deleting_again_finishes(
    world: World, media: Path
) -> None:
    owner_client = world.client_for(world.owner)
    owner_client.post(world.project_url("new/"), {"title": "Half way", "priority": "low"})
    world.client_for(world.member).post(world.project_url("1/comments/"), {"body": "gone in the first try"})
    uploading = begin_attach(world, "still-coming.txt")  # an upload not finished yet

    first = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})

    assert first.status_code == 503
    assert first.has_header("Retry-After")
    assert "A file is still being attached to WEB-1" in text(first)
    assert "<h1>Deleting WEB-1 waits for a file</h1>" in text(first)
    issue = load(world, 1)
    assert issue is not None
    assert not issue.is_tombstone  # the issue stands: deleting it again goes on
    assert stored_comments(world, 1) == []  # what was done stays done
    attachments.attachment_fail(uploading, reason="the upload ended")

    again = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})

    assert again.status_code == 302
    issue = load(world, 1)
    assert issue is not None
    assert issue.is_tombstone
    assert items_of(world, 1) == []
    assert files_in(media) == []


def test_only_owners_see_the_delete_page_and_asking_changes_nothing(world: World) -> None:
    world.client_for(world.owner).post(world.project_url("new/"), {"title": "Mine to keep", "priority": "low"})
    for user in (world.member, world.viewer):
        client = world.client_for(user)
        assert "Delete issue…" not in text(client.get(world.project_url("1/")))
        assert client.get(world.project_url("1/delete/")).status_code == 403
    assert world.client_for(world.owner).get(world.project_url("1/delete/")).status_code == 200
    issue = load(world, 1)
    assert issue is not None
    assert (issue.title, int(issue.version), issue.is_tombstone) == ("Mine to keep", 1, False)


def long_history(world: World, count: int) -> None:
    """WEB-1 (created by the owner) and ``count`` more events of its history, each with words of its own."""
    world.client_for(world.owner).post(world.project_url("new/"), {"title": "Long story", "priority": "low"})
    start, stream = utcnow(), issue_stream(world.slug, "WEB", 1)
    rows = []
    for n in range(count):
        when = start + timedelta(milliseconds=n + 1)
        item = events.event_item(
            stream=stream,
            kind="issue.edited",
            actor=world.owner.username,
            tenant=world.slug,
            data={"title": {"from": f"PLUM-{n}", "to": f"PLUM-{n + 1}"}},
            when=when,
            shards=events.DEFAULT_SHARDS,
        )
        rows.append((events.EVENTS.table_name(events.DEFAULT_PERIOD, when), item))
    events.events_put_many(rows)


def redact_requests(meter: capacity.CapacityMeter) -> int:
    return meter.by_pattern["inbox.redact"].requests if "inbox.redact" in meter.by_pattern else 0


def test_an_issue_delete_killed_mid_way_keeps_its_batches_and_the_next_one_goes_on_from_there(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SHOULD 4 of the review: a big issue's history goes batch by batch, so a run cut short is never redone."""
    long_history(world, 60)  # 61 events with the creation: batches of 25, 25, 11
    owner_client, real_redact, calls = world.client_for(world.owner), inbox.notifications_redact, [0]

    def dies_at_the_40th_event(**kwargs: Any) -> list[str]:
        calls[0] += 1
        if calls[0] == 40:  # the worker is killed in the second batch
            raise RuntimeError("worker killed")
        return real_redact(**kwargs)

    monkeypatch.setattr(inbox, "notifications_redact", dies_at_the_40th_event)
    with capacity.measure() as first, pytest.raises(RuntimeError):
        owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})
    assert len(stream_events(world, 1)) == 61 - deleting.BATCH_EVENTS  # the first batch is done for good
    issue = load(world, 1)
    assert issue is not None
    assert not issue.is_tombstone

    with capacity.measure() as again:
        finished = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})

    assert finished.status_code == 302
    assert 0 < redact_requests(again) < redact_requests(first)  # 36 events' notifications, not all 61 again
    issue = load(world, 1)
    assert issue is not None
    assert issue.is_tombstone
    assert [e.kind for e in stream_events(world, 1)] == ["issue.deleted"]
    assert "PLUM" not in everything_said(world, 1, world.owner.username)


@pytest.mark.parametrize("bound", [("REQUEST_UPDATES", 1), ("REQUEST_SECONDS", 0.0)], ids=["updates", "seconds"])
def test_a_request_does_its_share_of_a_long_history_and_says_that_deleting_again_goes_on(
    world: World, monkeypatch: pytest.MonkeyPatch, bound: tuple[str, float]
) -> None:
    long_history(world, 60)
    monkeypatch.setattr(deleting, *bound)  # one batch a request
    owner_client = world.client_for(world.owner)
    with capacity.measure() as meter:
        answers = [owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})]
    answers.append(owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)}))

    people = 3  # the team's owner, member and viewer (the owner, watching, among them)
    deleted = meter.by_pattern["events.delete_many"]
    assert redact_requests(meter) == 25 * people  # a batch's cost, as the docstring says
    assert (deleted.requests, deleted.wcu) == (1, 50)

    for answer, left in zip(answers, (36, 11), strict=True):
        assert answer.status_code == 503
        assert answer.has_header("Retry-After")
        assert f"This try removed 25 events of the history of WEB-1 and {left} are left" in text(answer)
        assert "<h1>Deleting WEB-1 goes on</h1>" in text(answer)  # not "Unavailable"
    assert len(stream_events(world, 1)) == 11
    issue = load(world, 1)
    assert issue is not None
    assert not issue.is_tombstone  # the issue stands until its last batch

    last = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})

    assert last.status_code == 302
    issue = load(world, 1)
    assert issue is not None
    assert issue.is_tombstone
    assert [e.kind for e in stream_events(world, 1)] == ["issue.deleted"]


def test_a_big_team_makes_a_batch_fewer_events(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch stays within BATCH_UPDATES notification UpdateItems: here 30, so 10 events for 3 people."""
    long_history(world, 20)
    monkeypatch.setattr(deleting, "BATCH_UPDATES", 30)
    monkeypatch.setattr(deleting, "REQUEST_UPDATES", 1)
    owner_client = world.client_for(world.owner)
    with capacity.measure() as meter:
        first = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})
    assert first.status_code == 503
    assert "This try removed 10 events of the history of WEB-1 and 11 are left" in text(first)
    assert redact_requests(meter) == 30


def test_a_comment_added_while_the_issue_is_being_deleted_goes_with_it(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment posted after the delete swept the comments and before the tombstone: the delete removes it too."""
    world, owner, member = addressed, addressed.owner.username, addressed.member.username
    owner_client, member_client = world.client_for(world.owner), world.client_for(world.member)
    create_assigned(world, owner_client, member, title="Rotate the keys")  # WEB-1: owner and member watch
    run_queued()
    tombstone = ddb_issues.issue_tombstone
    posted: list[int] = []

    def a_comment_first(issue: IssueItem, *, by: str) -> IssueItem:
        assert stored_comments(world, 1) == []  # the sweep is done
        posted.append(member_client.post(world.project_url("1/comments/"), {"body": SECRET}).status_code)
        run_queued()  # its notifications go out before the tombstone
        assert "4417-PLUM" in everything_said(world, 1, owner)
        return tombstone(issue, by=by)

    monkeypatch.setattr(ddb_issues, "issue_tombstone", a_comment_first)
    deleted = owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)})
    run_queued()

    assert (posted, deleted.status_code) == ([302], 302)
    assert stored_comments(world, 1) == []
    assert [e.kind for e in stream_events(world, 1)] == ["issue.deleted"]
    said = everything_said(world, 1, owner, member)
    assert "4417-PLUM" not in said
    assert "WEB-1 was deleted" in said


def test_a_comment_on_an_issue_deleted_since_the_page_was_opened_is_refused_and_nothing_is_said(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    world, owner, member = addressed, addressed.owner.username, addressed.member.username
    owner_client, member_client = world.client_for(world.owner), world.client_for(world.member)
    create_assigned(world, owner_client, member, title="Rotate the keys")
    run_queued()
    opened = selectors.project_issue_access(tenant=world.tenant, project_key="WEB", number=1)  # as the page read it
    assert owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)}).status_code == 302
    run_queued()
    monkeypatch.setattr(comment_views, "project_issue_access", lambda **_: opened)  # read before the delete

    refused = member_client.post(world.project_url("1/comments/"), {"body": SECRET})
    queued = run_queued()

    assert refused.status_code == 410
    assert "Your comment was not posted; nothing of it was stored." in text(refused)
    assert stored_comments(world, 1) == []
    assert [e.kind for e in stream_events(world, 1)] == ["issue.deleted"]
    assert queued == []  # no notification was queued
    assert "4417-PLUM" not in everything_said(world, 1, owner, member)


def test_a_comment_sent_to_a_deleted_issue_says_it_was_deleted_and_a_missing_one_is_not_found(
    world: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    owner_client, member_client = world.client_for(world.owner), world.client_for(world.member)
    owner_client.post(world.project_url("new/"), {"title": "Going", "priority": "low"})
    assert owner_client.post(world.project_url("1/delete/"), {"version": version_of(world, 1)}).status_code == 302
    run_queued()

    refused = member_client.post(world.project_url("1/comments/"), {"body": SECRET})
    missing = member_client.post(world.project_url("9/comments/"), {"body": SECRET})

    assert refused.status_code == 410
    assert "<h1>WEB-1 was deleted</h1>" in text(refused)
    assert "Your comment was not posted; nothing of it was stored." in text(refused)
    assert missing.status_code == 404
    assert stored_comments(world, 1) == []
    assert run_queued() == []
