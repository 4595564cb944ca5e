"""Removing a description edit's words from the history (issue 21): the editor or an owner may, no one else.

A description edit keeps its word diff in its ``issue.edited`` event, so words taken out of a
description (a pasted secret) stay readable in the history. The editor of that edit and the team's
owners get "Remove this change from the history": the event's ``diff`` is redacted in place
(``events.event_redact``, as a deleted comment's excerpt is) and the line says who removed it.
The fan-out never carries the diff to the worker; the notifications of that edit, which quote its new words
(the pasted secret, for the edit that pasted it), are rewritten without them, so a mail window not yet sent
does not quote them either, and a fan-out still queued quotes nothing (R2-9).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from ddbmodels import events, inbox
from ddbmodels.core import keys
from ddbmodels.events import Kind
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    Queued,
    addressed_fixture,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tests.tracker.test_history_diffs import created, diffs_on_page, edit, edited_events
from tracker.models import Membership

SECRET = "token ghp_s3cr3tPASTEDbyMistake here"
BEFORE = f"Steps: open the editor and press save. {SECRET}. The page shows a 500."
AFTER = "Steps: open the editor and press save. The page shows a 500."
REMOVE = "Remove this change from the history"


def remove_url(world: World) -> str:
    return world.project_url("1/history/remove-change/")


def secret_edit(world: World) -> events.Event:
    created(world, BEFORE)
    edit(world, description=AFTER)
    [event] = edited_events(world)
    return event


def fresh(world: World) -> events.Event:
    """The edit's event as stored now (a consistent read)."""
    stream = keys.issue_stream(world.slug, world.project_key, 1)
    found = events.stream_events(stream=stream, period=settings.EVENTS_PERIOD, consistent=True)
    [event] = [e for e in found if e.kind == Kind.ISSUE_EDITED]
    return event


def another_member(world: World) -> User:
    user = User.objects.create_user(f"second-{world.slug}", password="pw-for-tests")
    Membership.objects.create(user=user, tenant=world.tenant, role="member")
    return user


def test_the_editor_removes_the_words_from_the_page_the_days_activity_and_the_event(world: World) -> None:
    event = secret_edit(world)
    assert "ghp_s3cr3tPASTEDbyMistake" in "".join(event.data["diff"])  # what the builder left visible
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    assert REMOVE in page
    assert re.search(r'<form method="post" action="[^"]*/history/remove-change/"', page)
    assert 'data-confirm="' in page.split(REMOVE)[0].rsplit("<form", 1)[1]  # confirmed before it is sent

    response = world.client_for(world.member).post(remove_url(world), {"event": event.t})
    assert response.status_code == 302
    assert response["Location"].endswith("/p/WEB/1/#history")

    stored = fresh(world)
    assert "diff" not in stored.data
    assert stored.data["diff_removed_by"] == world.member.username
    assert stored.data["description"] is True  # the rest of the event stays
    assert stored.data["changed"] == {}
    for reader in (world.viewer, world.owner):
        page = text(world.client_for(reader).get(world.project_url("1/")))
        assert "ghp_s3cr3tPASTEDbyMistake" not in page
        assert diffs_on_page(page) == []
        assert (
            f"<strong>{world.member.username}</strong> edited the description "
            f"(the change was removed from the history by {world.member.username})"
        ) in page
        assert REMOVE not in page  # nothing left to remove
    day = text(world.client_for(world.viewer).get(world.url("activity/")))
    assert "ghp_s3cr3tPASTEDbyMistake" not in day
    assert "removed from the history by" in day


def test_an_owner_may_remove_another_members_change_and_a_replay_is_harmless(world: World) -> None:
    event = secret_edit(world)
    owner = world.client_for(world.owner)
    assert REMOVE in text(owner.get(world.project_url("1/")))
    assert owner.post(remove_url(world), {"event": event.t}).status_code == 302
    removed = fresh(world)
    assert removed.data["diff_removed_by"] == world.owner.username
    again = owner.post(remove_url(world), {"event": event.t}, follow=True)  # a double click, back and send again
    assert again.status_code == 200
    assert "already removed" in text(again)
    assert fresh(world).data == removed.data
    by_editor = world.client_for(world.member).post(remove_url(world), {"event": event.t})
    assert by_editor.status_code == 302
    assert fresh(world).data == removed.data


def test_viewers_and_other_members_may_not_and_another_team_is_not_found(world: World, other_world: World) -> None:
    event = secret_edit(world)
    second = another_member(world)
    for user in (world.viewer, second):
        assert REMOVE not in text(world.client_for(user).get(world.project_url("1/")))
        assert world.client_for(user).post(remove_url(world), {"event": event.t}).status_code == 403
    outsider = world.client_for(other_world.owner)
    assert outsider.post(remove_url(world), {"event": event.t}).status_code == 404
    theirs = f"/t/{other_world.slug}/p/WEB/1/history/remove-change/"  # their team has no such issue
    assert outsider.post(theirs, {"event": event.t}).status_code == 404
    assert world.client_for(world.member).get(remove_url(world)).status_code == 405  # POST only
    no_token = Client(enforce_csrf_checks=True)
    no_token.force_login(world.member)
    assert no_token.post(remove_url(world), {"event": event.t}).status_code == 403  # no CSRF token
    assert fresh(world).data == event.data  # nothing was removed


def test_a_key_that_is_not_a_description_edit_of_this_issue_changes_nothing(world: World) -> None:
    event = secret_edit(world)
    client = world.client_for(world.owner)
    created(world, "A second issue")  # WEB-2
    stream = keys.issue_stream(world.slug, world.project_key, 1)
    [creation] = [e for e in events.stream_events(stream=stream, period=settings.EVENTS_PERIOD) if e.t != event.t]
    assert client.post(remove_url(world), {"event": creation.t}).status_code == 404  # not an edit
    assert client.post(world.project_url("2/history/remove-change/"), {"event": event.t}).status_code == 404
    assert client.post(remove_url(world), {"event": "not-a-key"}).status_code == 400
    for malformed in (  # well-formed keys of no time an event can have: a year before 1000 (R2-8), no 13th month
        "0001-11-26T04:46:17.965Z#34e39529",
        "0999-01-01T00:00:00.000Z#ab",
        "0000-01-01T00:00:00.000Z#ab",
        "2026-13-01T00:00:00.000Z#ab",
        "2026-11-26T04:46:17.965Z#" + "a" * 2000,  # a key DynamoDB refuses (over 1,024 bytes)
    ):
        assert client.post(remove_url(world), {"event": malformed}).status_code == 400, malformed
    assert client.post(remove_url(world), {}).status_code == 400
    assert fresh(world).data == event.data


def test_the_fan_out_carries_no_diff_to_the_worker(world: World, queued: Queued) -> None:
    secret_edit(world)
    [edited] = [e for e in queued if e["kind"] == Kind.ISSUE_EDITED]
    assert "diff" not in edited["data"]
    assert "ghp_s3cr3tPASTEDbyMistake" not in repr(edited)
    assert edited["data"]["description"] is True
    assert edited["data"]["excerpt"].startswith("Steps: open")


def notes_of(world: World, username: str) -> list[str]:
    head = inbox.head_get(tenant=world.slug, username=username)
    page = inbox.notification_page(tenant=world.slug, username=username, read_through=head.read_through)
    return [note.text for note in page.items]


def test_the_pasting_edits_notifications_and_waiting_e_mail_lose_the_pasted_words_too(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, member, owner = addressed, addressed.member.username, addressed.owner.username
    created(world, AFTER)
    world.client_for(world.owner).post(world.project_url("1/watch/"))
    run_queued()
    digests.run()
    mail.outbox.clear()
    pasted = {"title": "Crash on save", "description": BEFORE, "priority": "high", "version": 1}
    assert world.client_for(world.member).post(world.project_url("1/edit/"), pasted).status_code == 302
    run_queued()  # the owner's notification quotes the new words, the pasted token among them; the e-mail waits
    [said] = [note for note in notes_of(world, owner) if "description" in note]
    assert "ghp_s3cr3tPASTEDbyMistake" in said
    assert digests.scheduled
    assert mail.outbox == []
    [event] = edited_events(world)
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    beside = page.split(REMOVE, 1)[1].split("</form>", 1)[0]  # after the button, in its form: seen, not only asked
    assert "E-mails already sent keep them." in beside
    assert "e-mails already sent keep them" in page.split(REMOVE)[0].rsplit("<form", 1)[1]  # … and in the confirm

    assert world.client_for(world.member).post(remove_url(world), {"event": event.t}).status_code == 302

    expected = (
        f"{member} changed the priority of WEB-1 from Medium to High and edited its description "
        f"(the change was removed from the history by {member})"
    )
    assert [note for note in notes_of(world, owner) if "description" in note] == [expected]
    assert "ghp_s3cr3tPASTEDbyMistake" not in text(world.client_for(world.owner).get(world.url("inbox/")))
    digests.run()  # the mail window closes after the removal: its e-mail says what the inbox says now
    assert [(m.subject, expected in m.body) for m in mail.outbox] == [(expected[:120], True)]  # a subject's cut
    assert "ghp_s3cr3tPASTEDbyMistake" not in repr([(m.subject, m.body) for m in mail.outbox])


def test_a_change_removed_before_its_notifications_went_out_is_not_quoted_by_them(
    world: World, queued: Queued, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    created(world, AFTER)
    world.client_for(world.owner).post(world.project_url("1/watch/"))
    run_queued()
    edit(world, description=BEFORE)  # pastes the token; its fan-out waits in the queue (a busy worker)
    [event] = edited_events(world)
    assert world.client_for(world.member).post(remove_url(world), {"event": event.t}).status_code == 302
    assert "ghp_s3cr3tPASTEDbyMistake" in repr(queued)  # the queued fan-out still carries the new words

    run_queued()

    said = [note for note in notes_of(world, world.owner.username) if "description" in note]
    member = world.member.username
    assert said == [
        f"{member} edited the description of WEB-1 “Crash on save” "
        f"(the change was removed from the history by {member})"
    ]
