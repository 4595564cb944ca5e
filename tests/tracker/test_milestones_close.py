"""Closing a milestone in the request (review R2-10): it goes through "closing" (an issue write into it is refused
meanwhile, read consistently), walks its open issues again after moving them (an issue the index did not list yet),
and stays open when an issue is refused, as the job does. A closing milestone whose job stopped has a Resume button;
the issue page and the board say "closing". An edit sent twice is the person's own form (review F19)."""

from __future__ import annotations

import copy
import dataclasses
from datetime import timedelta
from typing import Any

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from ddbmodels.core.keys import utcnow
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, text
from tests.tracker.test_milestones_pages import _close_form, _in, _listed, _milestone
from tracker import tasks
from tracker.cache import invalidate
from tracker.models import Membership
from tracker.selectors.milestones import milestones_cache_key
from tracker.services import bulk, milestone_close
from tracker.services import issues as issue_services
from tracker.services import milestones as milestone_services


def _states(world: World) -> dict[str, str]:
    return {m.name: m.state for m in _listed(world)}


def test_an_issue_refused_in_the_request_keeps_the_milestone_open_as_the_job_does(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    seen_states: list[str] = []
    real = milestone_close._change_one

    def refuse_one(issue: Any, target: Any, token: str) -> Any:
        current = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
        seen_states.append(current.state if current else "gone")
        if int(issue.number) == numbers[0]:
            raise ChangedSinceRead("changed meanwhile")
        return real(issue, target, token)

    monkeypatch.setattr(milestone_close, "_change_one", refuse_one)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 302
    said = flash(response)
    assert f"Milestone v1.2 stays open: WEB-{numbers[0]} (changed meanwhile) was not moved." in said[-1]
    assert "2 open issues moved" in said[-1]
    assert _states(world)["v1.2"] == "open"
    assert (load(world, numbers[0]) or object()).milestone == v12.milestone_id  # type: ignore[attr-defined]
    assert set(seen_states) == {"closing"}  # every move happens while it is closing: no issue can come in


def _lagging(
    monkeypatch: pytest.MonkeyPatch, milestone: milestones.MilestoneItem, *, reads: int, hidden: set[int]
) -> None:
    """The milestone's open issues as a lagging ``milestone_status`` index lists them: its first ``reads`` Queries
    leave out the issues ``hidden`` (put in a moment before, not indexed yet)."""
    real = issues.status_list
    count = [0]

    def lagging(**kw: Any) -> Any:
        page = real(**kw)
        if kw.get("milestone") == milestone.milestone_id and kw.get("status") == "open":
            count[0] += 1
            if count[0] <= reads:
                page = dataclasses.replace(page, issues=[i for i in page.issues if int(i.number) not in hidden])
        return page

    monkeypatch.setattr(issues, "status_list", lagging)


def test_an_issue_the_index_did_not_list_yet_is_moved_by_the_second_walk(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The milestone_status index is eventually consistent: an issue put into the milestone a moment before the
    close is not in the first reads (the page's and the close's first walk); the close walks again after moving."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    _lagging(monkeypatch, v12, reads=2, hidden={numbers[-1]})  # not indexed yet: the page's read, the first walk
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 302
    assert flash(response)[-1] == "Milestone v1.2 closed. 3 open issues moved."
    assert {(load(world, n) or object()).milestone for n in numbers} == {v13.milestone_id}  # type: ignore[attr-defined]
    assert _states(world)["v1.2"] == "closed"


def _stale_reads(monkeypatch: pytest.MonkeyPatch, stale: milestones.MilestoneItem) -> None:
    """An eventually consistent GetItem of the milestone answers ``stale`` (as it was before it was closing)."""
    real = milestones.milestone_get

    def get(**kw: Any) -> Any:
        if kw.get("milestone_id") == stale.milestone_id and kw.get("consistent") is False:
            return copy.deepcopy(stale)
        return real(**kw)

    monkeypatch.setattr(milestones, "milestone_get", get)


def test_no_issue_write_puts_an_issue_into_a_closing_milestone_even_when_a_read_lags(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12 = _milestone(world, "v1.2")
    stale = copy.deepcopy(v12)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, token="a-close")
    _stale_reads(monkeypatch, stale)
    membership = Membership.objects.get(user=world.member, tenant=world.tenant)
    project = issues.project_get(tenant=world.slug, key="WEB")
    assert project is not None
    issue = new_issue(world, "late")
    with pytest.raises(InvalidInput):
        milestone_services.issue_milestone_set(
            membership=membership,
            project=project,
            issue=issue,
            expected_version=int(issue.version),
            milestone_id=v12.milestone_id,
            token="side-form",
        )
    with pytest.raises(InvalidInput):
        bulk.bulk_change(
            membership=membership,
            project=project,
            versions={int(issue.number): int(issue.version)},
            change=bulk.BulkChange(milestone=v12.milestone_id),
            token="bulk-form",
        )
    with pytest.raises(InvalidInput):
        issue_services.issue_create(membership=membership, project=project, title="new", milestone=v12.milestone_id)
    assert (load(world, int(issue.number)) or object()).milestone is None  # type: ignore[attr-defined]
    assert load(world, int(issue.number) + 1) is None


def test_a_closing_milestone_whose_job_stopped_is_resumed_from_the_list(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    monkeypatch.setattr(milestone_close, "MOVE_IN_REQUEST", 2)  # 3 open issues: more than a request moves
    lost: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: lost.append(args))  # the job never runs
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    assert client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form).status_code == 302
    assert _states(world)["v1.2"] == "closing"
    item = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    assert item is not None
    stopped = utcnow() - milestone_close.RESUME_AFTER - timedelta(seconds=1)  # R3-6: Resume only once it lasts
    item.update(actions=[milestones.MilestoneItem.updated_at.set(stopped)])
    invalidate(milestones_cache_key(world.slug, "WEB"))
    listed = text(client.get(world.project_url("milestones/")))
    resume_url = world.project_url(f"milestones/{v12.milestone_id}/resume/")
    assert f'action="{resume_url}"' in listed
    assert ">Resume</button>" in listed
    assert 'action="' + resume_url not in text(world.client_for(world.viewer).get(world.project_url("milestones/")))
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: queued.append(args))
    resumed = client.post(resume_url)
    assert resumed.status_code == 302
    assert "goes on in the background" in flash(resumed)[-1]
    assert queued == lost  # the same close: its target and its token, kept on the milestone
    result = tasks.close_milestone.apply(args=queued[0]).get()["result"]
    assert result == {"moved": 3, "refused": 0, "closed": True}
    assert {(load(world, n) or object()).milestone for n in numbers} == {v13.milestone_id}  # type: ignore[attr-defined]
    again = client.post(resume_url)
    assert "is not being closed" in flash(again)[-1]
    assert world.client_for(world.viewer).post(resume_url).status_code == 403


def test_the_issue_page_and_the_board_say_closing_not_closed(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    [number] = _in(world, v12, 1)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, token="a-close")
    client = world.client_for(world.member)
    page = text(client.get(world.project_url(f"{number}/")))
    assert '<span class="muted">closing</span>' in page
    assert "v1.2 (closing)</option>" in page
    assert "(closed)" not in page
    board = text(client.get(world.project_url("board/")))
    assert "v1.2 (closing)</option>" in board
    assert "v1.2 (closed)" not in board


def test_an_edit_sent_twice_says_it_was_saved_not_that_somebody_else_saved(world: World) -> None:
    """Review F19: the second copy of one's own edit finds the milestone as that form made it: no 409."""
    item = _milestone(world, "v1.2")
    client = world.client_for(world.member)
    url = world.project_url(f"milestones/{item.milestone_id}/edit/")
    data = {
        "name": "v1.2-final",
        "due": "2027-01-01",
        "description": "Done",
        "version": hidden_value(client.get(url), "version"),
    }
    assert client.post(url, data).status_code == 302
    again = client.post(url, data)
    assert again.status_code == 302
    assert flash(again)[-1] == "This form was already sent: milestone v1.2-final is saved as it says."
    assert [(m.name, m.due, m.description, int(m.version)) for m in _listed(world)] == [
        ("v1.2-final", "2027-01-01", "Done", 2)
    ]
    other = client.post(url, {**data, "description": "Something else"})  # a different edit on that old version
    assert other.status_code == 409


def test_a_close_job_whose_target_was_closed_meanwhile_opens_the_milestone_again(world: World) -> None:
    """The job reads where the issues go from the milestone: a target closed since is no place to move them to;
    the milestone opens again with its issues, rather than staying "closing" (or failing) for ever."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    milestones.milestone_set_state(v13, state="closed", expected_version=1)
    result = tasks.close_milestone.apply(args=(world.slug, "WEB", v12.milestone_id, "someone")).get()["result"]
    assert result == {"moved": 0, "refused": 0, "closed": False, "target": "closed"}
    assert _states(world) == {"v1.2": "open", "v1.3": "closed"}
    said = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    assert said is not None
    assert said.close_said() == "someone’s close left it open: v1.3 was closed meanwhile; nothing was moved."
    assert {(load(world, n) or object()).milestone for n in numbers} == {v12.milestone_id}  # type: ignore[attr-defined]


def test_a_close_posted_with_move_moves_even_when_the_requests_own_read_lists_none(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The form offered the choice (its page listed the issues); the POST's read of the lagging index lists none:
    the posted choice holds, not "keep" (which would close the milestone with them in it)."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    _lagging(monkeypatch, v12, reads=1, hidden=set(numbers))  # the view's read: none listed
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert flash(response)[-1] == "Milestone v1.2 closed. 2 open issues moved."
    assert {(load(world, n) or object()).milestone for n in numbers} == {v13.milestone_id}  # type: ignore[attr-defined]


def test_a_milestone_left_closing_by_the_previous_version_opens_again_on_resume(world: World) -> None:
    """A milestone made "closing" before the close kept its target and token on it (its job queued with them):
    the job, old arguments or Resume's, opens it again rather than guessing where its issues go."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    item = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    assert item is not None
    item.update(actions=[milestones.MilestoneItem.state.set("closing")])  # as the previous version wrote it
    old_args = (world.slug, "WEB", v12.milestone_id, v13.milestone_id, "old-token", 2, "someone")
    result = tasks.close_milestone.apply(args=old_args).get()["result"]
    assert result == {"moved": 0, "refused": 0, "closed": False, "reopened": "no close recorded"}
    assert _states(world)["v1.2"] == "open"
    assert {(load(world, n) or object()).milestone for n in numbers} == {v12.milestone_id}  # type: ignore[attr-defined]


def test_a_reopen_sent_twice_says_it_is_open_already(world: World) -> None:
    """Review F19's kind: the second copy of one's own Reopen is no conflict with somebody else."""
    item = _milestone(world, "v1.2")
    milestones.milestone_set_state(item, state="closed", expected_version=1)
    client = world.client_for(world.member)
    url = world.project_url(f"milestones/{item.milestone_id}/reopen/")
    assert flash(client.post(url, {"version": "2"}))[-1] == "Milestone v1.2 reopened."
    again = client.post(url, {"version": "2"})
    assert again.status_code == 302
    assert flash(again)[-1] == "Milestone v1.2 is open already."
    assert [(m.state, int(m.version)) for m in _listed(world)] == [("open", 3)]


def test_a_close_whose_job_cannot_be_queued_moves_nothing_and_stays_open(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More open issues than a request moves and the queue down: a 503 that says nothing was moved or closed, and
    it is so (open again, its issues where they were), rather than a milestone "closing" with no job."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    monkeypatch.setattr(milestone_close, "MOVE_IN_REQUEST", 2)

    def down(*_args: Any) -> None:
        raise OSError("the broker does not answer")

    monkeypatch.setattr(tasks.close_milestone, "delay", down)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 503
    assert response.has_header("Retry-After")
    assert _states(world) == {"v1.2": "open", "v1.3": "open"}
    assert {(load(world, n) or object()).milestone for n in numbers} == {v12.milestone_id}  # type: ignore[attr-defined]
