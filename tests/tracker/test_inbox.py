"""Watching issues and the inbox: who watches, the fan-out (once per event), e-mail, the pages and the header."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from ddbmodels import comments, inbox, issues
from ddbmodels.core import capacity
from ddbmodels.inbox import InboxItem
from ddbmodels.inbox import mail as inbox_mail
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, new_issue, text, version_of
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    Queued,
    addressed_fixture,
    create_assigned,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tracker import optional_redis, tasks
from tracker.services import activity
from tracker.services import inbox as inbox_services


def unread(world: World, username: str) -> int:
    return inbox.head_get(tenant=world.slug, username=username).unread


def notes_of(world: World, username: str) -> list[tuple[str, str, bool]]:
    head = inbox.head_get(tenant=world.slug, username=username)
    page = inbox.notification_page(tenant=world.slug, username=username, read_through=head.read_through)
    return [(n.reference, n.text, n.unread) for n in page.items]


def test_an_issue_assigned_to_bob_reaches_his_inbox_and_mailbox_and_not_the_actors(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, owner, bob = addressed, addressed.owner.username, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob)

    (report,) = run_queued()
    assert mail.outbox == []  # the e-mail waits for the end of the mail window
    assert [(kwargs["username"], countdown) for kwargs, countdown in digests.scheduled] == [(bob, 300)]
    assert digests.run() == [{"sent": 1, "already": False, "notifications": 1}]

    assert report["watchers_added"] == sorted([owner, bob])
    assert report["delivered"] == [bob]
    assert notes_of(world, bob) == [("WEB-1", f"{owner} opened WEB-1 “Fix the login” and assigned it to you", True)]
    assert unread(world, bob) == 1
    assert notes_of(world, owner) == []
    assert unread(world, owner) == 0
    assert [m.to for m in mail.outbox] == [[f"{bob}@example.com"]]
    assert mail.outbox[0].subject == f"{owner} opened WEB-1 “Fix the login” and assigned it to you"
    assert f"/t/{world.slug}/p/WEB/1/" in mail.outbox[0].body
    assert inbox.watchers(tenant=world.slug, project_key="WEB", number=1) == sorted([owner, bob])


def test_the_same_event_fanned_out_twice_is_one_notification_and_one_email(
    addressed: World, queued: Queued, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob)
    queued.append(dict(queued[0]))  # the task delivered twice (a retry, a redelivered message)

    first, second = run_queued()
    assert len(digests.scheduled) == 1
    digests.scheduled.append(digests.scheduled[0])  # and the digest's task ran twice too
    assert [report["sent"] for report in digests.run()] == [1, 0]

    assert first["delivered"] == [bob]
    assert second["delivered"] == []
    assert second["already"] == [bob]
    assert len(notes_of(world, bob)) == 1
    assert unread(world, bob) == 1
    assert len(mail.outbox) == 1


def test_the_inbox_page_shows_unread_in_bold_links_to_the_issue_and_marks_all_read(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, bob = addressed, addressed.member.username
    owner_client, bob_client = world.client_for(world.owner), world.client_for(world.member)
    create_assigned(world, owner_client, bob)
    run_queued()
    owner_client.post(world.project_url("1/status/"), {"to": "in_progress", "version": version_of(world, 1)})
    run_queued()

    page = bob_client.get(world.url("inbox/"))

    assert page.status_code == 200
    body = text(page)
    row = r'<li class="unread">\s*<span class="dot">.*?</span></span>\s*<form [^>]*>.*?<button [^>]*>([^<]*)</button>'
    assert re.findall(row, body) == [
        f"{world.owner.username} moved WEB-1 “Fix the login” from Open to In progress",
        f"{world.owner.username} opened WEB-1 “Fix the login” and assigned it to you",
    ]
    assert "Inbox <strong>2</strong>" in body  # the header
    links = re.findall(rf'<form method="post" action="(/t/{world.slug}/inbox/\d[^"]+/)"', body)
    assert len(links) == 2

    opened = bob_client.post(links[1])  # the older one: opening it (its row's form) marks it read, shows the issue
    assert opened.status_code == 302
    assert opened["Location"] == world.project_url("1/")
    assert unread(world, bob) == 1
    assert [n[2] for n in notes_of(world, bob)] == [True, False]

    marked = bob_client.post(world.url("inbox/read/"), follow=True)
    assert marked.redirect_chain == [(world.url("inbox/"), 302)]
    assert "Marked 1 notification read." in text(marked)
    assert "Inbox <strong>" not in text(marked)  # the header's count went with it
    assert unread(world, bob) == 0
    after = text(bob_client.get(world.url("inbox/")))
    assert "Mark all read" not in after
    assert "Marked 1 notification read." not in after  # said once
    assert "Nothing was unread." in text(bob_client.post(world.url("inbox/read/"), follow=True))
    assert "Inbox <strong>" not in after
    assert len(re.findall(r'<li class="read">', after)) == 2


def test_watch_and_unwatch_from_the_issue_page_decide_who_hears_of_changes(
    world: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    new_issue(world, "Flaky test", reporter=world.owner.username)
    member = world.client_for(world.member)
    assert "Watch</button>" in text(member.get(world.project_url("1/")))

    assert member.post(world.project_url("1/watch/")).status_code == 302
    assert member.post(world.project_url("1/watch/")).status_code == 302  # twice: still one watcher
    page = text(member.get(world.project_url("1/")))
    assert "Unwatch</button>" in page
    assert "1 watching" in page
    world.client_for(world.owner).post(world.project_url("1/status/"), {"to": "resolved", "version": 1})
    run_queued()
    assert [n[0] for n in notes_of(world, world.member.username)] == ["WEB-1"]

    assert member.post(world.project_url("1/unwatch/")).status_code == 302
    assert "Watch</button>" in text(member.get(world.project_url("1/")))
    world.client_for(world.owner).post(world.project_url("1/status/"), {"to": "closed", "version": 2})
    (report,) = run_queued()
    assert report["delivered"] == []
    assert len(notes_of(world, world.member.username)) == 1


def test_a_viewer_may_watch_and_is_told_of_changes(
    world: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    new_issue(world, "Roadmap")
    viewer = world.client_for(world.viewer)
    assert "Watch</button>" in text(viewer.get(world.project_url("1/")))
    assert viewer.post(world.project_url("1/watch/")).status_code == 302
    world.client_for(world.member).post(world.project_url("1/status/"), {"to": "in_progress", "version": 1})
    run_queued()
    assert [n[1] for n in notes_of(world, world.viewer.username)] == [
        f"{world.member.username} moved WEB-1 “Roadmap” from Open to In progress"
    ]


def test_another_teams_inbox_and_watch_urls_are_not_found(world: World, other_world: World) -> None:
    new_issue(world, "Secret")
    outsider = other_world.client_for(other_world.owner)
    for response in (
        outsider.get(world.url("inbox/")),
        outsider.post(world.url("inbox/read/")),
        outsider.get(world.url("inbox/2026-11-22T10:15:30.123Z~0000000a/")),
        outsider.post(world.project_url("1/watch/")),
        outsider.post(world.project_url("1/unwatch/")),
    ):
        assert response.status_code == 404
        assert NOT_FOUND_TEXT in text(response)
    assert inbox.watchers(tenant=world.slug, project_key="WEB", number=1, consistent=True) == []
    member = world.client_for(world.member)
    assert member.post(world.project_url("2/watch/")).status_code == 404  # no such issue
    assert member.get(world.url("inbox/2026-11-22T10:15:30.123Z~0000000a/")).status_code == 404  # no such note
    assert member.get(world.project_url("1/watch/")).status_code == 405  # POST only


def test_a_tampered_or_foreign_inbox_cursor_is_a_400(world: World, other_world: World) -> None:
    member = world.client_for(world.member)
    assert member.get(world.url("inbox/?cursor=nonsense")).status_code == 400
    for n in range(27):
        inbox.deliver(
            tenant=world.slug,
            event_key=f"2026-11-22T10:{n // 60:02d}:{n % 60:02d}.000Z#{n:08x}",
            notes=[inbox.Note(world.member.username, "WEB", 1, "x", "issue.edited", f"note {n}")],
        )
    first = member.get(world.url("inbox/"))
    cursor = re.search(r'rel="next" href="\?cursor=([^"]+)"', text(first))
    assert cursor is not None
    second = member.get(world.url(f"inbox/?cursor={cursor.group(1)}"))
    assert second.status_code == 200
    assert re.findall(r"note (\d+)</", text(second)) == ["1", "0"]
    owner = world.client_for(world.owner)  # the same cursor is not the owner's inbox
    assert owner.get(world.url(f"inbox/?cursor={cursor.group(1)}")).status_code == 400


def test_comments_and_mentions_make_watchers_and_say_so(
    world: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    issue = new_issue(world, "Slow page", reporter=world.owner.username)
    said = comments.comment_add(  # a comment that exists: the fan-out quotes no deleted one
        tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body="Look at this now"
    ).comment
    activity.record(
        issue,
        kind="comment.added",
        actor=world.member.username,
        data={"comment": said.key, "mentions": [world.viewer.username, "stranger"], "excerpt": "Look at this now"},
    )
    (report,) = run_queued()
    assert report["watchers_added"] == sorted([world.member.username, world.viewer.username])  # not the stranger
    assert report["delivered"] == [world.viewer.username]  # the reporter watches nothing: made without a request
    assert notes_of(world, world.viewer.username)[0][1] == (
        f"{world.member.username} mentioned you on WEB-1: Look at this now"
    )


def test_fan_outs_run_out_of_order_still_tell_every_watcher(addressed: World, queued: Queued) -> None:
    """Two workers run fan-outs in any order: a comment's may run before the issue's creation's.

    The watchers a change implies are added by its request, so the reporter hears of a comment whose
    fan-out ran first (bench/load.py's check that every watcher is told found one missed when the
    task added them).
    """
    world, owner, bob, member = addressed, addressed.owner.username, addressed.member.username, addressed.member
    create_assigned(world, world.client_for(world.owner), bob)
    assert inbox.watchers(tenant=world.slug, project_key="WEB", number=1) == sorted([owner, bob])  # before any task
    response = world.client_for(member).post(world.project_url("1/comments/"), {"body": "On it"})
    assert response.status_code == 302
    reports = [tasks.fan_out_event.apply(kwargs={"event": event}).get() for event in reversed(queued)]
    comment_report = reports[0]
    assert comment_report["delivered"] == [owner]  # bob commented: everyone but him
    assert [reference for reference, _, _ in notes_of(world, owner)] == ["WEB-1"]
    assert unread(world, owner) == 1


def test_a_comments_preview_is_its_words_without_the_markdown(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, bob = addressed, addressed.member.username
    new_issue(world, "Deploy script", reporter=world.owner.username)
    owner = world.client_for(world.owner)
    owner.post(world.project_url("1/watch/"))
    body = f"@{bob} this is **only** a _test_ of [the script](https://example.com/x) — run `make deploy`"
    assert world.client_for(world.member).post(world.project_url("1/comments/"), {"body": body}).status_code == 302
    run_queued()

    expected = f"{bob} commented on WEB-1: @{bob} this is only a test of the script — run make deploy"
    assert notes_of(world, world.owner.username) == [("WEB-1", expected, True)]
    assert expected in text(owner.get(world.url("inbox/")))
    assert "**" not in text(owner.get(world.url("inbox/")))


def test_a_description_edit_says_so_with_the_new_words(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, bob, alice = addressed, addressed.member.username, addressed.owner.username
    new_issue(world, "Login page", reporter=bob, description="Old steps")
    bob_client = world.client_for(world.member)
    bob_client.post(world.project_url("1/watch/"))
    form = {"title": "Login page", "priority": "medium", "assignee": "", "labels": "", "version": "1"}
    edited = world.client_for(world.owner).post(
        world.project_url("1/edit/"), {**form, "description": "## Steps\n\n1. open **the** page\n2. wait"}
    )
    assert edited.status_code == 302
    run_queued()
    assert notes_of(world, bob)[0][1] == (
        f"{alice} edited the description of WEB-1 “Login page”: “Steps open the page wait”"
    )


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            {"changed": {}, "description": True, "excerpt": "New words"},
            "edited the description of WEB-7 “T”: “New words”",
        ),
        ({"changed": {}, "description": True, "excerpt": ""}, "removed the description of WEB-7 “T”"),
        ({"changed": {"title": ["Old", "T"]}}, "renamed WEB-7 to “T”"),
        ({"changed": {"priority": ["low", "high"]}}, "changed the priority of WEB-7 “T” from Low to High"),
        ({"changed": {"assignee": [None, "carol"]}}, "assigned WEB-7 “T” to carol"),
        ({"changed": {"assignee": [None, "bob"]}}, "assigned WEB-7 “T” to you"),
        ({"changed": {"assignee": ["bob", None]}}, "unassigned you from WEB-7 “T”"),
        ({"changed": {"assignee": ["carol", "dave"]}}, "reassigned WEB-7 “T” from carol to dave"),
        ({"changed": {}, "labels": {"added": ["bug", "ui"], "removed": []}}, "added labels bug, ui to WEB-7 “T”"),
        ({"changed": {}, "labels": {"added": [], "removed": ["bug"]}}, "removed label bug from WEB-7 “T”"),
        (
            {"changed": {"priority": ["low", "urgent"]}, "labels": {"added": ["bug"]}, "description": True},
            "changed the priority of WEB-7 “T” from Low to Urgent, added label bug and edited its description",
        ),
        ({"changed": {"milestone": [None, "v1.2"]}}, "put WEB-7 “T” in milestone v1.2"),
        ({"changed": {"milestone": ["v1.2", None]}}, "took WEB-7 “T” out of milestone v1.2"),
        (
            {"changed": {"priority": ["low", "high"], "milestone": ["v1.2", "v1.3"]}},
            "changed the priority of WEB-7 “T” from Low to High and moved it from milestone v1.2 to v1.3",
        ),
        ({"changed": {}}, "saved WEB-7 “T”"),
    ],
)
def test_an_edit_is_told_in_a_teams_words(data: dict[str, Any], said: str) -> None:
    text = inbox_services.note_text(
        kind="issue.edited", actor="alice", data=data, reference="WEB-7", title="T", recipient="bob"
    )
    assert text == f"alice {said}"
    assert "(details)" not in text


def test_the_header_count_is_one_cached_get_and_a_dynamodb_error_only_hides_it(
    world: World, dynamodb_refuses: Callable[..., Any]
) -> None:
    inbox.deliver(
        tenant=world.slug,
        event_key="2026-11-22T10:15:30.123Z#0000000a",
        notes=[inbox.Note(world.member.username, "WEB", 1, "x", "issue.edited", "a change")],
    )
    member = world.client_for(world.member)
    with capacity.measure() as meter:
        assert "Inbox <strong>1</strong>" in text(member.get(world.project_url()))
    assert meter.by_pattern["inbox.unread"].requests == 1
    assert meter.by_pattern["inbox.unread"].rcu == 0.5
    with capacity.measure() as meter:
        assert "Inbox <strong>1</strong>" in text(member.get(world.project_url()))
    assert "inbox.unread" not in meter.by_pattern  # cached

    inbox_services.forget_unread(world.slug, [world.member.username])
    dynamodb_refuses("GetItem", table=InboxItem.Meta.table_name)
    page = member.get(world.project_url())
    assert page.status_code == 200
    assert ">Inbox</a>" in text(page)


def test_a_broker_that_does_not_answer_never_fails_the_change(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(tasks.fan_out_event, "apply_async", down)
    response = world.client_for(world.member).post(
        world.project_url("new/"), {"title": "Still saved", "priority": "low"}
    )
    assert response.status_code == 302
    assert "could not queue the notifications of issue.created" in caplog.text
    assert optional_redis.paused()  # the next requests do not wait for the broker again


def test_while_redis_is_paused_nothing_is_queued_and_the_change_stands(
    world: World, queued: Queued, caplog: pytest.LogCaptureFixture
) -> None:
    optional_redis.failed("a test", ConnectionError("Redis is down"))
    response = world.client_for(world.member).post(world.project_url("new/"), {"title": "Saved", "priority": "low"})
    assert response.status_code == 302
    assert queued == []
    assert "the notifications of issue.created on" in caplog.text
    assert new_issue_count(world) == 1


def new_issue_count(world: World) -> int:
    return len(issues.issue_numbers(tenant=world.slug, project_key=world.project_key))


@pytest.fixture
def no_stale_messages(redis_cache: str) -> Iterator[None]:
    """An empty broker queue: fan-outs other tests queued (for tenants of their own) are not this worker's work."""
    from tracker.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge("celery")
    return


@pytest.mark.slow
def test_the_fan_out_and_the_email_digest_run_on_the_real_worker(
    addressed: World, no_stale_messages: None, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    celery_worker = start_worker(NOTIFY_EMAIL_WINDOW_SECONDS="1")
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob, title="Through the worker")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and unread(world, bob) == 0:
        assert celery_worker.poll() is None, "the worker died"
        time.sleep(0.3)
    assert notes_of(world, bob) == [
        ("WEB-1", f"{world.owner.username} opened WEB-1 “Through the worker” and assigned it to you", True)
    ]
    assert unread(world, world.owner.username) == 0

    window = {"tenant": world.slug, "username": bob, "project_key": "WEB", "number": 1}
    # The fan-out opened bob's mail window; its digest, a second later, claims it (and sends the e-mail).
    opened = inbox_mail.window_add(**window, event_key="2000-01-01T00:00:00.000Z#00000000")
    if not opened.opened:  # the window was still open: our key joined it; wait for the worker's digest
        while time.monotonic() < deadline and inbox_mail.window_keys(**window, start=opened.start) is not None:
            assert celery_worker.poll() is None, "the worker died"
            time.sleep(0.3)
        assert inbox_mail.window_keys(**window, start=opened.start) is None, "the digest never claimed the window"
    else:  # the digest ran already: the window was gone; this one is ours to clean up
        assert inbox_mail.window_take(**window, start=opened.start) == ["2000-01-01T00:00:00.000Z#00000000"]


def test_an_error_page_asks_dynamodb_nothing_for_the_header(world: World) -> None:
    member = world.client_for(world.member)
    with capacity.measure() as meter:
        missing = member.get(world.project_url("99/"))
    assert missing.status_code == 404
    assert ">Inbox</a>" in text(missing)
    assert "inbox.unread" not in meter.by_pattern
    member.get(world.project_url())  # a page: the count is read (0) and cached
    with capacity.measure() as meter:
        assert member.get(world.project_url("99/")).status_code == 404
    assert "inbox.unread" not in meter.by_pattern


def test_a_deleted_issues_notification_opens_the_inbox_saying_so(
    world: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    new_issue(world, "Duplicate", reporter=world.owner.username)
    member = world.client_for(world.member)
    member.post(world.project_url("1/watch/"))
    world.client_for(world.owner).post(world.project_url("1/delete/"), {"version": 1})
    run_queued()
    (link,) = re.findall(rf'action="(/t/{world.slug}/inbox/\d[^"]+/)"', text(member.get(world.url("inbox/"))))
    opened = member.post(link, follow=True)
    assert opened.redirect_chain == [(world.url("inbox/"), 302)]
    assert "WEB-1 was deleted." in text(opened)
    assert f"{world.owner.username} deleted WEB-1" in text(opened)


def test_opening_a_notification_by_get_changes_nothing_and_only_its_csrf_checked_post_marks_it_read(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    """Issue 20, finding 14: a GET (a prefetch, an old link) used to mark it read; now it only leads to the issue."""
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob)
    run_queued()
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(world.member)
    page = browser.get(world.url("inbox/"))
    (link,) = re.findall(rf'<form method="post" action="(/t/{world.slug}/inbox/\d[^"]+/)"', text(page))
    assert unread(world, bob) == 1

    for _ in range(2):  # the old link, followed twice: the issue, nothing marked
        opened = browser.get(link)
        assert opened.status_code == 302
        assert opened["Location"] == world.project_url("1/")
    assert unread(world, bob) == 1
    assert [n[2] for n in notes_of(world, bob)] == [True]

    assert browser.post(link).status_code == 403  # no CSRF token: refused, nothing marked
    assert unread(world, bob) == 1

    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(page))
    assert token is not None
    posted = browser.post(link, {"csrfmiddlewaretoken": token.group(1)})
    assert posted.status_code == 302
    assert posted["Location"] == world.project_url("1/")
    assert unread(world, bob) == 0
    assert [n[2] for n in notes_of(world, bob)] == [False]
