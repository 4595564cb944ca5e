"""Closing a milestone, review round 4 (R4-3, R4-5, R4-6, R4-7's refused list): a request close cut short by a
busy database hands over to the job (or opens again and says why), the job's count includes what the request
moved, Resume is refused while a close runs, and the refused issues kept on the milestone are capped."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core.errors import Unavailable
from ddbmodels.core.keys import utcnow
from tests.tracker.conftest import World
from tests.tracker.helpers import flash
from tests.tracker.test_milestone_guarded_writes import _membership, _project
from tests.tracker.test_milestones_close_outcome import _row, _states, _where
from tests.tracker.test_milestones_pages import _close_form, _in, _milestone
from tracker import tasks
from tracker.cache import invalidate
from tracker.selectors.milestones import milestones_cache_key
from tracker.services import milestone_close


def _unavailable_on_call(monkeypatch: pytest.MonkeyPatch, which: int) -> None:
    """``issues.issue_change`` is throttled once, on its ``which``-th call (the probe of R4-3)."""
    real = issues.issue_change
    calls = {"n": 0}

    def flaky(issue: Any, **kw: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == which:
            raise Unavailable("throttled")
        return real(issue, **kw)

    monkeypatch.setattr(issues, "issue_change", flaky)


def _post_close(world: World, milestone: milestones.MilestoneItem, to: milestones.MilestoneItem) -> Any:
    client = world.client_for(world.member)
    form = {**_close_form(client, world, milestone), "issues": "move", "to": to.milestone_id}
    url = world.project_url(f"milestones/{milestone.milestone_id}/close/")
    return client, form, url, client.post(url, form)


def test_a_close_cut_short_by_a_busy_database_hands_over_to_the_job_which_counts_every_move(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4-3 + R4-5: throttled on its 2nd move, the request's close queues the job (the same form again is then
    truly "under way"); the job moves the rest and the row counts the request's move too."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    _unavailable_on_call(monkeypatch, 2)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: queued.append(args))
    client, form, url, response = _post_close(world, v12, v13)
    assert response.status_code == 302
    assert flash(response)[-1] == (
        "Moving the open issues of v1.2 has started (1 moved so far); it closes when they are all moved. "
        "Reload this page to see it: its row then says how the close ended."
    )
    assert len(queued) == 1
    assert _states(world)["v1.2"] == "closing"
    assert "Your close is under way" in flash(client.post(url, form))[-1]  # true now: the job is queued
    result = tasks.close_milestone.apply(args=queued[0]).get()["result"]
    assert result == {"moved": 3, "refused": 0, "closed": True}
    assert _states(world)["v1.2"] == "closed"
    assert _where(world, numbers) == [v13.milestone_id] * 3
    assert ": 3 open issues moved to v1.3." in _row(world, "v1.2")


def test_a_close_cut_short_when_the_queue_is_down_too_opens_again_and_says_why(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4-3: no job can take over: the milestone is not left "closing" with nothing running."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    _unavailable_on_call(monkeypatch, 2)

    def down(*_args: Any) -> None:
        raise OSError("the broker does not answer")

    monkeypatch.setattr(tasks.close_milestone, "delay", down)
    *_, response = _post_close(world, v12, v13)
    assert flash(response)[-1] == (
        "Milestone v1.2 stays open: the database was busy and the background queue did not answer. "
        "1 open issue moved. Close it again."
    )
    assert _states(world)["v1.2"] == "open"
    where = _where(world, numbers)
    assert (where.count(v13.milestone_id), where.count(v12.milestone_id)) == (1, 2)  # what moved stays moved
    assert "the database was busy" in _row(world, "v1.2")


def test_a_close_throttled_before_any_move_with_the_queue_down_opens_again_and_is_a_503(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    _in(world, v12, 2)
    _unavailable_on_call(monkeypatch, 1)

    def down(*_args: Any) -> None:
        raise OSError("the broker does not answer")

    monkeypatch.setattr(tasks.close_milestone, "delay", down)
    with pytest.raises(Unavailable):
        milestone_close.milestone_close(
            membership=_membership(world),
            project=_project(world),
            milestone=v12,
            expected_version=1,
            issues="move",
            to=v13.milestone_id,
            token="01J0000000000000000000000C",
        )
    assert _states(world)["v1.2"] == "open"


def test_a_close_whose_end_meets_a_transaction_holding_the_milestone_tries_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4-3: the end's UpdateItem refused for a moment (an issue's move into it holds it in a transaction: 503-class)
    is tried again: the close ends closed, not "closing" with nothing running."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 2)
    real = milestones.milestone_set_state
    refused = {"n": 0}

    def held(item: Any, **kw: Any) -> Any:
        if kw["state"] == "closed" and refused["n"] < 2:
            refused["n"] += 1
            raise Unavailable("TransactionConflictException")
        return real(item, **kw)

    monkeypatch.setattr(milestones, "milestone_set_state", held)
    *_, response = _post_close(world, v12, v13)
    assert flash(response)[-1] == "Milestone v1.2 closed. 2 open issues moved."
    assert refused["n"] == 2
    assert _states(world)["v1.2"] == "closed"
    assert _where(world, numbers) == [v13.milestone_id] * 2


def test_resume_is_refused_while_a_close_runs(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """R4-6: the list offers Resume only after RESUME_AFTER; a stale tab's Resume posted sooner starts no job."""
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    _in(world, v12, 1)
    milestones.milestone_set_state(v12, state="closing", expected_version=1, to=v13.milestone_id, token="a-close")
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: queued.append(args))
    client = world.client_for(world.member)
    resume_url = world.project_url(f"milestones/{v12.milestone_id}/resume/")
    response = client.post(resume_url)
    assert response.status_code == 302
    assert flash(response)[-1].startswith("Milestone v1.2 is being closed: its open issues are being moved")
    assert queued == []
    item = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=v12.milestone_id)
    assert item is not None
    item.update(actions=[milestones.MilestoneItem.updated_at.set(utcnow() - timedelta(minutes=3))])
    invalidate(milestones_cache_key(world.slug, "WEB"))
    assert "goes on in the background" in flash(client.post(resume_url))[-1]
    assert len(queued) == 1


def test_the_refused_issues_kept_on_the_milestone_are_capped(world: World) -> None:
    """R4-7 (its close half): at most REFUSED_KEPT references are kept and shown, then "and N more"."""
    v12 = _milestone(world, "v1.2")
    refused = {f"WEB-{n}": "changed meanwhile" for n in range(1, 31)}
    outcome = milestone_close.Closed(milestone=v12, moved=2, refused=refused)
    said = milestone_close.kept_outcome("alice", "tok", None, outcome, closed=False)
    assert len(said["refused"]) == milestone_close.REFUSED_KEPT == 20
    assert said["refused_more"] == 10
    stored = milestones.milestone_set_state(v12, state="open", expected_version=1, outcome=said)
    row = stored.close_said()
    assert row.startswith("alice’s close left it open: WEB-1 (changed meanwhile), WEB-10 (changed meanwhile)")
    assert "and 10 more were not moved; 2 open issues moved." in row
