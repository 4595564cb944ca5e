"""Removing a description edit's change reaches the later edits that still show its words (review 3: R3-8, R3-9,
R3-10).

An edit pastes a secret, a later one changes something else (its word diff keeps the secret as context, its
notification quotes the new description's start: the secret), another takes the secret out (its diff shows it
removed). Removing the pasting edit removes the changes of every later description edit up to the one that took
its words out, and their notifications stop quoting them. A fan-out running while the removal happens does not
deliver the quote (R3-9); the notifications of a large team are rewritten by a queued job (R3-10).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ddbmodels import inbox
from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, text
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    addressed_fixture,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tests.tracker.test_history_diffs import created, edited_events
from tests.tracker.test_history_diffs_removal import AFTER, BEFORE, notes_of, remove_url
from tracker import tasks
from tracker.services import history_removal
from tracker.services.inbox import delivery

TOKEN = "ghp_s3cr3tPASTEDbyMistake"
RunQueued = Callable[[], list[dict[str, Any]]]


def three_edits(world: World, run_queued: RunQueued, *, later: str = "") -> None:
    """Created clean; edit 1 pastes the token, edit 2 adds a line at the end, edit 3 takes the token out; the
    owner watches and is told of each. ``later``: a fourth edit after that, unrelated."""
    created(world, AFTER)
    world.client_for(world.owner).post(world.project_url("1/watch/"))
    run_queued()
    client = world.client_for(world.member)
    edit_url = world.project_url("1/edit/")
    descriptions = [BEFORE, BEFORE + " Also on Firefox.", AFTER + " Also on Firefox."]
    for description in descriptions + ([later] if later else []):
        version = hidden_value(client.get(edit_url), "version")
        form = {"title": "Crash on save", "description": description, "priority": "high", "version": version}
        assert client.post(edit_url, form).status_code == 302
        run_queued()


def test_removing_the_pasting_edit_takes_its_words_out_of_the_later_edits_up_to_the_one_that_removed_them(
    addressed: World, run_queued: RunQueued, digests: Digests
) -> None:
    world, owner = addressed, addressed.owner.username
    three_edits(world, run_queued, later=AFTER + " Also on Firefox and Safari.")
    found = edited_events(world)  # newest first: the unrelated one, took it out, the middle one, the paste
    assert len(found) == 4
    assert sum(TOKEN in note for note in notes_of(world, owner)) == 2  # the paste's and the middle edit's quotes

    response = world.client_for(world.member).post(remove_url(world), {"event": found[-1].t}, follow=True)

    page = text(world.client_for(world.owner).get(world.project_url("1/")))
    assert TOKEN not in page
    assert "and from 2 later edits that still showed its words" in text(response)
    assert [TOKEN in note for note in notes_of(world, owner)] == [False] * len(notes_of(world, owner))
    after = {e.t: e.data for e in edited_events(world)}
    assert "diff" in after[found[0].t]  # the unrelated later edit (after the token was out) keeps its change
    assert all("diff" not in after[e.t] for e in found[1:])
    digests.run()
    from django.core import mail

    assert TOKEN not in repr([(m.subject, m.body) for m in mail.outbox])


def test_removing_the_edit_that_took_them_out_first_then_the_paste_stops_there(
    addressed: World, run_queued: RunQueued
) -> None:
    world = addressed
    three_edits(world, run_queued, later=AFTER + " Also on Firefox and Safari.")
    found = edited_events(world)
    client = world.client_for(world.member)
    assert client.post(remove_url(world), {"event": found[1].t}).status_code == 302  # took it out: no cascade
    assert "diff" in {e.t: e.data for e in edited_events(world)}[found[2].t]
    assert client.post(remove_url(world), {"event": found[-1].t}).status_code == 302  # then the paste

    after = {e.t: e.data for e in edited_events(world)}
    assert "diff" in after[found[0].t]  # the removal that already happened ends the walk: the later one stays
    assert all("diff" not in after[e.t] for e in found[1:])
    assert TOKEN not in text(world.client_for(world.owner).get(world.project_url("1/")))


def test_a_fan_out_running_while_the_change_is_removed_does_not_deliver_the_quote(
    addressed: World, queued: list[dict[str, Any]], run_queued: RunQueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-9: the fan-out read the event before its removal; the removal's rewrite ran before it delivered."""
    world, owner = addressed, addressed.owner.username
    created(world, AFTER)
    world.client_for(world.owner).post(world.project_url("1/watch/"))
    run_queued()
    client = world.client_for(world.member)
    version = hidden_value(client.get(world.project_url("1/edit/")), "version")
    form = {"title": "Crash on save", "description": BEFORE, "priority": "high", "version": version}
    assert client.post(world.project_url("1/edit/"), form).status_code == 302
    [event] = edited_events(world)
    real = inbox.deliver

    def deliver(**kwargs: Any) -> Any:  # the removal lands between the fan-out's read and its delivery
        assert client.post(remove_url(world), {"event": event.t}).status_code == 302
        return real(**kwargs)

    monkeypatch.setattr(delivery.inbox, "deliver", deliver)
    run_queued()

    said = [note for note in notes_of(world, owner) if "description" in note]
    assert len(said) == 1, said
    assert TOKEN not in said[0]
    assert "the change was removed from the history by" in said[0]


def test_a_large_team_s_notifications_are_rewritten_by_a_queued_job(
    addressed: World, run_queued: RunQueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-10: the request redacts the events; past REQUEST_UNQUOTES rewrites the notifications go to a job."""
    world, owner = addressed, addressed.owner.username
    three_edits(world, run_queued)
    found = edited_events(world)
    jobs: list[dict[str, Any]] = []
    monkeypatch.setattr(history_removal, "REQUEST_UNQUOTES", 0)
    monkeypatch.setattr(tasks.history_unquote, "apply_async", lambda *a, kwargs, **o: jobs.append(kwargs))

    assert world.client_for(world.member).post(remove_url(world), {"event": found[-1].t}).status_code == 302

    assert TOKEN not in text(world.client_for(world.owner).get(world.project_url("1/")))  # the history at once
    assert any(TOKEN in note for note in notes_of(world, owner))  # the inbox: when the job runs
    [job] = jobs
    assert sorted(job["event_keys"]) == sorted(e.t for e in found)
    assert tasks.history_unquote.apply(kwargs=job).get() == 3 * 1  # three edits' notes, the owner's each
    assert not any(TOKEN in note for note in notes_of(world, owner))


def test_a_removal_cut_short_before_the_notifications_is_finished_by_removing_it_again(
    addressed: World, run_queued: RunQueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The events are redacted first; sent again, the removal finds the later edits by the word hashes kept."""
    world, owner = addressed, addressed.owner.username
    three_edits(world, run_queued)
    found = edited_events(world)
    client = world.client_for(world.member)
    real = history_removal._unquote_all

    def cut_short(*args: Any) -> bool:
        raise RuntimeError("the worker was lost after the events were redacted")

    monkeypatch.setattr(history_removal, "_unquote_all", cut_short)
    with pytest.raises(RuntimeError):
        client.post(remove_url(world), {"event": found[-1].t})
    assert all("diff" not in e.data for e in edited_events(world))
    assert any(TOKEN in note for note in notes_of(world, owner))
    monkeypatch.setattr(history_removal, "_unquote_all", real)

    response = client.post(remove_url(world), {"event": found[-1].t}, follow=True)

    assert "This change was already removed from the history." in text(response)
    assert not any(TOKEN in note for note in notes_of(world, owner))


def test_a_job_that_cannot_be_queued_is_a_503_and_removing_again_finishes(
    addressed: World, run_queued: RunQueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, owner = addressed, addressed.owner.username
    three_edits(world, run_queued)
    found = edited_events(world)
    monkeypatch.setattr(history_removal, "REQUEST_UNQUOTES", 0)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("the broker is down")

    monkeypatch.setattr(tasks.history_unquote, "apply_async", refuse)
    client = world.client_for(world.member)
    response = client.post(remove_url(world), {"event": found[-1].t})
    assert response.status_code == 503
    assert response.has_header("Retry-After")
    assert "Remove it again in a minute to finish." in text(response)
    assert TOKEN not in text(world.client_for(world.owner).get(world.project_url("1/")))

    jobs: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.history_unquote, "apply_async", lambda *a, kwargs, **o: jobs.append(kwargs))
    assert client.post(remove_url(world), {"event": found[-1].t}).status_code == 302
    [job] = jobs
    tasks.history_unquote.apply(kwargs=job).get()
    assert not any(TOKEN in note for note in notes_of(world, owner))


def test_a_removal_that_reads_to_the_end_of_its_window_says_later_edits_may_still_show_the_words(
    addressed: World, run_queued: RunQueued, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4-7: the later edits are one page of LATER_EDITS_READ events; when the words are still not taken out at its
    end, the page does not stop silently at "and from N later edits": it says edits after those may show them."""
    world = addressed
    three_edits(world, run_queued)
    found = edited_events(world)  # newest first: took it out, the middle one, the paste
    monkeypatch.setattr(history_removal, "LATER_EDITS_READ", 1)  # the window ends at the middle edit

    response = world.client_for(world.member).post(remove_url(world), {"event": found[-1].t}, follow=True)

    assert (
        "The change was removed from the history, and from 1 later edit that still showed its words. "
        "Edits after those may still show them: remove their changes too."
    ) in text(response)
    after = {e.t: e.data for e in edited_events(world)}
    assert "diff" in after[found[0].t]  # past the window: left as it was, and said so
    assert all("diff" not in after[e.t] for e in found[1:])


def test_a_removal_whose_words_are_out_within_its_window_says_nothing_more(
    addressed: World, run_queued: RunQueued
) -> None:
    world = addressed
    three_edits(world, run_queued)
    found = edited_events(world)
    response = world.client_for(world.member).post(remove_url(world), {"event": found[-1].t}, follow=True)
    assert "and from 2 later edits that still showed its words." in text(response)
    assert "may still show them" not in text(response)
