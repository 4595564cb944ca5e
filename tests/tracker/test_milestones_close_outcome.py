"""Closing a milestone, review round 3 (R3-2 … R3-6): the target re-read, done issues left where they were done,
the close's outcome kept on the milestone and shown on its list row, invalid forms, one's own close sent again."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache

from ddbmodels import issues, milestones
from ddbmodels.core.keys import utcnow
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, text
from tests.tracker.test_milestones_pages import _close_form, _in, _listed, _milestone
from tracker import tasks
from tracker.services import milestone_close


def _states(world: World) -> dict[str, str]:
    return {m.name: m.state for m in _listed(world)}


def _where(world: World, numbers: list[int]) -> list[str | None]:
    return [(load(world, n) or object()).milestone for n in numbers]  # type: ignore[attr-defined]


def _row(world: World, name: str) -> str:
    """The milestone's row on the list page, as a member sees it."""
    page = text(world.client_for(world.member).get(world.project_url("milestones/")))
    start = page.index(f'data-milestone="{name}"')
    return page[start : page.index("</li>", start)]


def test_a_close_leaves_a_resolved_issue_a_lagging_index_row_lists_as_open_where_it_was_done(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-3: the row says open, the issue was resolved since: it stays in the milestone it was done in."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    [n] = _in(world, v12, 1)
    stale = load(world, n)
    issues.issue_change_status(load(world, n), to="resolved")  # type: ignore[arg-type]
    real = issues.status_list

    def lagging(**kw: Any) -> Any:
        page = real(**kw)
        if kw.get("milestone") == v12.milestone_id and kw.get("status") == "open":
            return dataclasses.replace(page, issues=[stale])  # the index has not caught up with the resolve
        return page

    client = world.client_for(world.member)
    monkeypatch.setattr(issues, "status_list", lagging)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert flash(response)[-1] == "Milestone v1.2 closed."
    after = load(world, n)
    assert after is not None
    assert (after.status, after.milestone) == ("resolved", v12.milestone_id)


def test_the_close_job_stops_when_its_target_is_closed_meanwhile_and_the_list_says_why(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-2 + R3-4: the job re-reads the target before each page; closed meanwhile: it stops, the milestone opens
    again with the issues not moved yet, and its list row says so (nobody else is told)."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    monkeypatch.setattr(milestone_close, "MOVE_IN_REQUEST", 1)  # pages of one
    real = issues.issue_change
    state = {"done": False}

    def change(issue: Any, **kw: Any) -> Any:
        done = real(issue, **kw)
        if not state["done"]:
            state["done"] = True  # a teammate closes v1.3 ("keep": one UpdateItem) while the job runs
            target = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v13.milestone_id)
            milestones.milestone_set_state(target, state="closed", expected_version=int(target.version))
        return done

    monkeypatch.setattr(issues, "issue_change", change)
    result = tasks.close_milestone.apply(args=(world.slug, "WEB", v12.milestone_id, "alice")).get()["result"]
    assert result == {"moved": 1, "refused": 0, "closed": False, "target": "closed"}
    assert _states(world) == {"v1.2": "open", "v1.3": "closed"}
    assert sorted(_where(world, numbers), key=str) == sorted([v13.milestone_id, v12.milestone_id, v12.milestone_id])
    row = _row(world, "v1.2")
    assert "alice’s close left it open: v1.3 was closed meanwhile; 1 open issue moved to v1.3." in row


def test_a_close_whose_target_starts_closing_too_is_refused_not_a_ping_pong(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-2: A → B and B → A, each read the other open: the close re-reads its target once "closing" is set."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    real = milestones.milestone_set_state

    def both(item: Any, **kw: Any) -> Any:
        done = real(item, **kw)
        if kw["state"] == "closing" and item.milestone_id == v12.milestone_id:  # B's close, at the same moment
            other = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v13.milestone_id)
            real(other, state="closing", expected_version=int(other.version), to=v12.milestone_id, token="b")
        return done

    monkeypatch.setattr(milestones, "milestone_set_state", both)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    said = flash(response)[-1]
    assert said == "Milestone v1.2 stays open: v1.3 is being closed as well. Nothing was moved. Close it again."
    assert _states(world)["v1.2"] == "open"
    assert _where(world, numbers) == [v12.milestone_id] * 2


def test_the_job_s_refused_issues_are_named_on_the_list_row_until_the_next_edit(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-4: the job's "stays open" is kept on the milestone (who, what was refused) and the list row shows it."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    real = milestone_close._change_one

    def refuse_one(issue: Any, target: Any, token: str) -> Any:
        if int(issue.number) == numbers[0]:
            raise milestone_close.ChangedSinceRead("changed meanwhile")
        return real(issue, target, token)

    monkeypatch.setattr(milestone_close, "_change_one", refuse_one)
    tasks.close_milestone.apply(args=(world.slug, "WEB", v12.milestone_id, "alice")).get()
    row = _row(world, "v1.2")
    assert (
        f"alice’s close left it open: WEB-{numbers[0]} (changed meanwhile) was not moved; 1 open issue moved to v1.3."
        in row
    )
    now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    milestones.milestone_update(now, name="v1.2", due=None, description="later", expected_version=int(now.version))
    cache.clear()
    assert "close left it open" not in _row(world, "v1.2")


def test_an_invalid_close_form_changes_nothing_even_when_the_index_lists_no_open_issue(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-5: a posted choice that is no longer valid (its target closed) is the form again with its error."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    milestones.milestone_set_state(
        milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v13.milestone_id),
        state="closed",
        expected_version=1,
    )
    cache.clear()  # as the service's close of v1.3 invalidates the project's milestone list
    real = issues.status_list

    def lagging(**kw: Any) -> Any:
        page = real(**kw)
        if kw.get("milestone") == v12.milestone_id:
            return dataclasses.replace(page, issues=[], next_key=None)
        return page

    monkeypatch.setattr(issues, "status_list", lagging)
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 200  # the form again, nothing changed
    assert "That is no longer offered (no other milestone is open now): choose again." in text(response)
    assert _states(world)["v1.2"] == "open"
    assert _where(world, numbers) == [v12.milestone_id] * 2


def test_a_closed_target_a_cached_list_still_offers_is_an_error_on_move_them_to(world: World) -> None:
    """R3-5's neighbour: the service refuses the target; the page is the close form with the error, not a 400 page."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    target = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v13.milestone_id)
    milestones.milestone_set_state(target, state="closed", expected_version=1)  # the cached list still says open
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 200  # the form again, nothing changed
    page = text(response)
    assert "Close v1.2?" in page
    assert "v1.3 is not open any more: choose another milestone." in page
    assert _states(world)["v1.2"] == "open"
    assert _where(world, numbers) == [v12.milestone_id] * 2


def test_ones_own_close_sent_again_after_it_stayed_open_says_what_it_did(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-6: the second copy of one's own close (which left it open: an issue refused) is no 409."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    real = milestone_close._change_one

    def refuse_one(issue: Any, target: Any, token: str) -> Any:
        if int(issue.number) == numbers[0]:
            raise milestone_close.ChangedSinceRead("changed meanwhile")
        return real(issue, target, token)

    monkeypatch.setattr(milestone_close, "_change_one", refuse_one)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    url = world.project_url(f"milestones/{v12.milestone_id}/close/")
    assert "stays open" in flash(client.post(url, form))[-1]
    again = client.post(url, form)
    assert again.status_code == 302
    said = flash(again)[-1]
    assert said.startswith("Your close ran: it left v1.2 open: ")
    assert f"WEB-{numbers[0]} (changed meanwhile) was not moved" in said


def test_resume_is_offered_only_for_a_close_that_has_been_closing_a_while(world: World) -> None:
    """R3-6: a close running fine in a request is not offered Resume (a second job beside it)."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    cache.clear()
    row = _row(world, "v1.2")
    assert ">Resume</button>" not in row
    assert "being closed now" in row
    item = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    item.update(actions=[milestones.MilestoneItem.updated_at.set(utcnow() - timedelta(minutes=10))])
    cache.clear()
    assert ">Resume</button>" in _row(world, "v1.2")


def _close_target_after_first_move(world: World, monkeypatch: pytest.MonkeyPatch, target_id: str) -> None:
    """A teammate closes the close's target ("keep": one UpdateItem) right after the close's first move, inside
    a walk: the next moves are refused by their own transaction's check on the target (MilestoneNotOpen)."""
    real = issues.issue_change
    state = {"done": False}

    def change(issue: Any, **kw: Any) -> Any:
        done = real(issue, **kw)
        if not state["done"]:
            state["done"] = True
            target = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=target_id)
            milestones.milestone_set_state(target, state="closed", expected_version=int(target.version))
        return done

    monkeypatch.setattr(issues, "issue_change", change)


def test_a_close_in_the_request_stops_when_a_move_is_refused_because_its_target_closed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-2 with R3-1's check: a move into a target closed meanwhile is refused by the move's own write; the close
    stops there, opens the milestone again and says why (not an error page, not "closing" for ever)."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    _close_target_after_first_move(world, monkeypatch, v13.milestone_id)
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 302
    said = flash(response)[-1]
    assert said == "Milestone v1.2 stays open: v1.3 was closed meanwhile. 1 open issue moved. Close it again."
    assert _states(world) == {"v1.2": "open", "v1.3": "closed"}
    assert sorted(_where(world, numbers), key=str) == sorted([v13.milestone_id] + [v12.milestone_id] * 2)
    assert "v1.3 was closed meanwhile; 1 open issue moved to v1.3." in _row(world, "v1.2")


def test_the_close_job_stops_when_a_move_is_refused_because_its_target_closed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    _close_target_after_first_move(world, monkeypatch, v13.milestone_id)  # one page of 3: no re-read between
    result = tasks.close_milestone.apply(args=(world.slug, "WEB", v12.milestone_id, "alice")).get()["result"]
    assert result == {"moved": 1, "refused": 0, "closed": False, "target": "closed"}
    assert _states(world) == {"v1.2": "open", "v1.3": "closed"}
    assert sorted(_where(world, numbers), key=str) == sorted([v13.milestone_id] + [v12.milestone_id] * 2)
    assert "alice’s close left it open: v1.3 was closed meanwhile; 1 open issue moved to v1.3." in _row(world, "v1.2")


def test_a_close_whose_job_cannot_be_queued_after_moving_some_opens_again_and_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3-6's neighbour: Resume is offered only after a while, so a close the queue could not take over after it
    moved some is not left "closing" with "press Resume": it opens again and says what happened."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    monkeypatch.setattr(milestone_close, "WALKS_IN_REQUEST", 1)  # the request's walks end after the first

    def down(*_args: Any) -> None:
        raise OSError("the broker does not answer")

    monkeypatch.setattr(tasks.close_milestone, "delay", down)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert flash(response)[-1] == (
        "Milestone v1.2 stays open: the background queue did not answer. 2 open issues moved. Close it again."
    )
    assert _states(world)["v1.2"] == "open"
    assert _where(world, numbers) == [v13.milestone_id] * 2


def test_a_close_with_keep_says_on_its_row_who_closed_it_and_that_its_issues_stay(world: World) -> None:
    """R3-4: every close's end is on the row, the plain ones too; the same form again says what it did."""
    v12 = _milestone(world, "v1.2")
    _in(world, v12, 1)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "keep"}
    url = world.project_url(f"milestones/{v12.milestone_id}/close/")
    assert flash(client.post(url, form))[-1] == "Milestone v1.2 closed."
    today = utcnow().date().isoformat()
    assert f"Closed by {world.member.username} on {today}: its open issues stay in it." in _row(world, "v1.2")
    assert flash(client.post(url, form))[-1] == "Your close ran: v1.2 is closed: its open issues stay in it."
