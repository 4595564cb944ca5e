"""A project's milestones (/t/<team>/p/<KEY>/milestones/): list with progress, new (exactly once), edit (stale:
409), close (its open issues moved, taken out or kept; many: a job), and the list's ``milestone:"…"`` filter."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.milestones import writes as milestone_writes
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, pager_link, references, text
from tracker import tasks
from tracker.cache import invalidate
from tracker.demo.milestones import milestones_seed
from tracker.selectors.milestones import milestones_cache_key
from tracker.services import milestone_close
from tracker.services.projects import project_counts_refresh


def _milestone(world: World, name: str, **fields: Any) -> milestones.MilestoneItem:
    item, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name=name, due=fields.get("due"), created_by=world.member.username
    )
    return item


def _in(world: World, milestone: milestones.MilestoneItem, count: int, title: str = "task") -> list[int]:
    """``count`` new issues in ``milestone``; their numbers."""
    numbers = []
    for i in range(count):
        issue = new_issue(world, f"{title} {i + 1}")
        issues.issue_change(issue, token=f"t-{issue.number}", milestone=milestone.milestone_id)
        numbers.append(int(issue.number))
    return numbers


def _listed(world: World) -> list[milestones.MilestoneItem]:
    return milestones.milestone_list(tenant=world.slug, project_key="WEB", consistent=True)


def test_a_new_milestone_is_created_exactly_once_by_its_form(world: World) -> None:
    client = world.client_for(world.member)
    form = client.get(world.project_url("milestones/new/"))
    assert form.status_code == 200
    key = hidden_value(form, "idempotency_key")
    data = {"name": "v1.2", "due": "2026-12-06", "description": "The December release", "idempotency_key": key}
    first = client.post(world.project_url("milestones/new/"), data)
    assert first.status_code == 302
    assert flash(first) == ["Milestone v1.2 created."]
    with capacity.measure() as meter:
        again = client.post(world.project_url("milestones/new/"), data)
    assert again.status_code == 302
    assert flash(again)[-1] == "This form was already sent: milestone v1.2 exists, nothing new."
    assert meter.wcu == 0
    found = _listed(world)
    assert [(m.name, m.due, m.description) for m in found] == [("v1.2", "2026-12-06", "The December release")]
    page = text(client.get(world.project_url("milestones/")))
    assert "v1.2" in page
    assert "due 2026-12-06" in page


def test_a_name_the_project_has_already_is_a_form_error(world: World) -> None:
    _milestone(world, "v1.2")
    client = world.client_for(world.member)
    key = hidden_value(client.get(world.project_url("milestones/new/")), "idempotency_key")
    response = client.post(world.project_url("milestones/new/"), {"name": "V1.2", "idempotency_key": key})
    assert response.status_code == 200
    assert "WEB already has a milestone called V1.2." in text(response)
    quoted = client.post(world.project_url("milestones/new/"), {"name": 'say "hi"', "idempotency_key": key})
    assert "cannot hold double quotes" in text(quoted)
    assert [m.name for m in _listed(world)] == ["v1.2"]


def test_an_edit_of_a_milestone_saved_meanwhile_is_a_409_that_changes_nothing(world: World) -> None:
    item = _milestone(world, "v1.2")
    client = world.client_for(world.member)
    url = world.project_url(f"milestones/{item.milestone_id}/edit/")
    form = client.get(url)
    version = hidden_value(form, "version")
    milestones.milestone_update(item, name="v1.2.0", due=None, description="", expected_version=1)  # somebody else
    response = client.post(url, {"name": "v1.2-final", "due": "", "description": "", "version": version})
    assert response.status_code == 409
    assert "Somebody saved this milestone since you opened it" in text(response)
    assert hidden_value(response, "version") == "2"  # saving again is a decision made on what is there now
    assert [m.name for m in _listed(world)] == ["v1.2.0"]
    saved = client.post(url, {"name": "v1.2-final", "due": "2027-01-01", "description": "", "version": "2"})
    assert saved.status_code == 302
    assert [(m.name, m.due) for m in _listed(world)] == [("v1.2-final", "2027-01-01")]


def test_a_viewer_reads_the_milestones_but_changes_none(world: World) -> None:
    item = _milestone(world, "v1.2")
    client = world.client_for(world.viewer)
    page = client.get(world.project_url("milestones/"))
    assert page.status_code == 200
    assert "v1.2" in text(page)
    assert "New milestone" not in text(page)
    for suffix in ("new/", f"{item.milestone_id}/edit/", f"{item.milestone_id}/close/"):
        assert client.get(world.project_url(f"milestones/{suffix}")).status_code == 403
        assert client.post(world.project_url(f"milestones/{suffix}"), {"name": "x", "version": "1"}).status_code == 403
    assert [(m.name, m.state) for m in _listed(world)] == [("v1.2", "open")]


def test_another_teams_milestones_are_not_found(world: World, other_world: World) -> None:
    item = _milestone(world, "v1.2")
    client = other_world.client_for(other_world.member)
    assert client.get(world.project_url("milestones/")).status_code == 404
    assert client.get(world.project_url(f"milestones/{item.milestone_id}/edit/")).status_code == 404
    own = world.client_for(world.member)
    assert own.get(world.project_url("milestones/NOTANID/edit/")).status_code == 404


def test_the_list_shows_progress_from_the_counts_refresh(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    numbers = _in(world, v12, 5)
    for number in numbers[:3]:
        issue = load(world, number)
        assert issue is not None
        issues.issue_change_status(issue, to="resolved")
    project_counts_refresh(tenant=world.slug, key="WEB")
    page = text(world.client_for(world.member).get(world.project_url("milestones/")))
    assert re.search(r'<progress max="5" value="3"', page)
    assert "60 % done" in page
    assert "2 open</a>" in page
    assert "style=" not in page  # CSP: bars are <progress>, never inline styles


def test_the_list_filters_by_milestone_in_one_query(world: World) -> None:
    beta = _milestone(world, "v1.2 beta")
    other = _milestone(world, "v1.3")
    mine = _in(world, beta, 3)
    _in(world, other, 2)
    new_issue(world, "in no milestone")
    client = world.client_for(world.member)
    with capacity.measure() as meter:
        response = client.get(world.project_url(), {"q": 'milestone:"v1.2 beta"'})
    assert response.status_code == 200
    assert references(response) == sorted(mine, reverse=True)
    assert meter.by_pattern["issues.list"].requests == 1
    assert 'value="milestone:&quot;v1.2 beta&quot;"' in text(response)  # the box keeps the quotes
    unknown = client.get(world.project_url(), {"q": "milestone:v9"})
    assert "WEB has no milestone of that name" in text(unknown)
    team_wide = client.get(world.url("issues/"), {"q": "milestone:v1.3"})
    assert "works inside a project" in text(team_wide)
    with_words = client.get(world.project_url(), {"q": "milestone:v1.3 login"})
    assert "do not go together yet" in text(with_words)


def _close_form(client: Any, world: World, milestone: milestones.MilestoneItem) -> dict[str, str]:
    page = client.get(world.project_url(f"milestones/{milestone.milestone_id}/close/"))
    assert page.status_code == 200
    return {"version": hidden_value(page, "version"), "idempotency_key": hidden_value(page, "idempotency_key")}


def test_closing_a_milestone_moves_its_open_issues_where_asked_once(world: World) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 3)
    done = load(world, numbers[0])
    assert done is not None
    issues.issue_change_status(done, to="resolved")  # done: stays in v1.2
    client = world.client_for(world.member)
    page = text(client.get(world.project_url(f"milestones/{v12.milestone_id}/close/")))
    assert "v1.2 still has 2 open issues" in page
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 302
    assert flash(response) == ["Milestone v1.2 closed. 2 open issues moved."]
    by_number = {n: load(world, n) for n in numbers}
    assert {n: i.milestone for n, i in by_number.items() if i} == {
        numbers[0]: v12.milestone_id,
        numbers[1]: v13.milestone_id,
        numbers[2]: v13.milestone_id,
    }
    assert [(m.name, m.state) for m in _listed(world)] == [("v1.3", "open"), ("v1.2", "closed")]
    again = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)  # sent twice
    assert flash(again)[-1] == "Your close ran: v1.2 is closed: 2 open issues moved to v1.3."  # R3-6
    assert {n: (load(world, n) or done).version for n in numbers} == {n: i.version for n, i in by_number.items() if i}


def test_closing_with_no_target_takes_the_issues_out_and_close_anyway_keeps_them(world: World) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    out = _in(world, v12, 2)
    kept = _in(world, v13, 2)
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "remove"}
    assert client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form).status_code == 302
    assert [(load(world, n) or object()).milestone for n in out] == [None, None]  # type: ignore[attr-defined]
    form = {**_close_form(client, world, v13), "issues": "keep"}
    assert client.post(world.project_url(f"milestones/{v13.milestone_id}/close/"), form).status_code == 302
    assert [(load(world, n) or object()).milestone for n in kept] == [v13.milestone_id] * 2  # type: ignore[attr-defined]
    assert {m.state for m in _listed(world)} == {"closed"}
    closed_page = client.get(world.project_url(f"milestones/{v12.milestone_id}/close/"))
    assert closed_page.status_code == 302  # closed already: back to the list, which says so


@pytest.mark.slow
def test_closing_a_milestone_with_more_open_issues_than_a_request_moves_starts_the_job(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    numbers = _in(world, v12, 27)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: queued.append(args))
    client = world.client_for(world.member)
    page = text(client.get(world.project_url(f"milestones/{v12.milestone_id}/close/")))
    assert "more than 25 open issues" in page
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    response = client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form)
    assert response.status_code == 302
    assert "has started" in flash(response)[0]
    assert len(queued) == 1
    # Review F16: handed to the job, it is "closing" (on its version), not open with its Close button
    assert [(m.name, m.state) for m in _listed(world)][:2] == [("v1.2", "closing"), ("v1.3", "open")]
    listed = text(client.get(world.project_url("milestones/")))
    assert "<strong data-closing>closing</strong>: moving its" in listed
    assert f"milestones/{v12.milestone_id}/close/" not in listed
    second = client.post(
        world.project_url(f"milestones/{v12.milestone_id}/close/"), {**form, "issues": "remove"}
    )  # a second close with another choice while the first runs
    assert second.status_code == 302
    assert "is being closed" in flash(second)[-1]
    assert len(queued) == 1
    reopen = client.post(world.project_url(f"milestones/{v12.milestone_id}/reopen/"), {"version": form["version"]})
    assert reopen.status_code == 302
    assert "is being closed" in flash(reopen)[-1]
    assert {m.name: m.state for m in _listed(world)}["v1.2"] == "closing"
    result = tasks.close_milestone.apply(args=queued[0]).get()
    assert result["result"] == {"moved": 27, "refused": 0, "closed": True}
    assert {(load(world, n) or object()).milestone for n in numbers} == {v13.milestone_id}  # type: ignore[attr-defined]
    assert {m.name: m.state for m in _listed(world)} == {"v1.2": "closed", "v1.3": "open"}


def test_the_demo_milestones_are_made_once_with_their_progress(world: World) -> None:
    made = [new_issue(world, f"demo {i}") for i in range(45)]
    for issue in made[:20]:
        issues.issue_change_status(issue, to="resolved")
    assert milestones_seed(team=world.slug, project="WEB") == [
        "milestone v1.2 (25 issues)",
        "milestone v1.3 (15 issues)",
    ]
    by_name = {m.name: m for m in _listed(world)}
    assert round(100 * by_name["v1.2"].done() / by_name["v1.2"].total()) == 60
    assert (by_name["v1.3"].done(), by_name["v1.3"].total()) == (2, 15)
    assert by_name["v1.2"].due is not None
    assert by_name["v1.2"].due < (by_name["v1.3"].due or "")
    assert milestones_seed(team=world.slug, project="WEB") == []  # a second run leaves them alone
    assert len(_listed(world)) == 2


def test_closing_with_move_needs_an_open_target_and_changes_nothing_without_one(world: World) -> None:
    v12, v11 = _milestone(world, "v1.2"), _milestone(world, "v1.1")
    milestones.milestone_set_state(v11, state="closed", expected_version=1)
    numbers = _in(world, v12, 2)
    client = world.client_for(world.member)
    url = world.project_url(f"milestones/{v12.milestone_id}/close/")
    alone = text(client.get(url))
    assert "Move them to another open milestone" not in alone  # no other open milestone: not offered
    assert 'name="to"' not in alone
    _milestone(world, "v1.3")
    invalidate(milestones_cache_key(world.slug, "WEB"))  # made behind the site's back: its cached list drops
    no_target = client.post(url, {**_close_form(client, world, v12), "issues": "move"})
    assert no_target.status_code == 200
    assert "Choose the milestone they move to." in text(no_target)
    closed_target = client.post(url, {**_close_form(client, world, v12), "issues": "move", "to": v11.milestone_id})
    assert closed_target.status_code == 200  # not among the choices (open milestones only): a form error
    assert {m.name: m.state for m in _listed(world)} == {"v1.2": "open", "v1.1": "closed", "v1.3": "open"}
    assert {(load(world, n) or object()).milestone for n in numbers} == {v12.milestone_id}  # type: ignore[attr-defined]


def test_a_milestone_list_with_a_label_says_none_of_a_page_matched_and_keeps_next(world: World) -> None:
    """Review F9: the label is checked on one page of the milestone's rows; a page with none of them labelled
    says how many it looked at and keeps Next, which leads to the labelled issue further on."""
    v12 = _milestone(world, "v1.2")
    oldest = new_issue(world, "the labelled one", labels=["bug"])
    issues.issue_change(oldest, token="t-oldest", milestone=v12.milestone_id)
    _in(world, v12, 26)
    client = world.client_for(world.member)
    first = client.get(world.project_url(), {"q": 'milestone:"v1.2" label:bug'})
    assert first.status_code == 200
    assert references(first) == []
    page = text(first)
    assert "No open issues labelled bug." not in page
    assert "None of the 25 open issues looked at is labelled bug; there are more" in page
    further = pager_link(first, "next")
    assert further is not None
    second = client.get(world.project_url() + further)
    assert references(second) == [int(oldest.number)]


def _lagging_index(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """``milestone_status`` as an eventually consistent index: for its first ``calls`` Queries, each page is the one
    seen the first time it was asked for (rows of issues moved since still listed, with their old versions)."""
    real = issues.status_list
    seen: dict[str, Any] = {}
    count = [0]

    def lagging(**kw: Any) -> Any:
        if not kw.get("milestone"):
            return real(**kw)
        count[0] += 1
        key = f"{kw['milestone']}|{kw['status']}|{sorted((kw.get('start') or {}).items())}"
        if count[0] > calls:
            return real(**kw)
        if key not in seen:
            seen[key] = copy.deepcopy(real(**kw))
        return copy.deepcopy(seen[key])

    monkeypatch.setattr(issues, "status_list", lagging)


def _start_close_job(world: World, monkeypatch: pytest.MonkeyPatch, count: int) -> tuple[Any, ...]:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    _in(world, v12, count)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_milestone, "delay", lambda *args: queued.append(args))
    client = world.client_for(world.member)
    form = {**_close_form(client, world, v12), "issues": "move", "to": v13.milestone_id}
    assert client.post(world.project_url(f"milestones/{v12.milestone_id}/close/"), form).status_code == 302
    assert len(queued) == 1
    return queued[0]


@pytest.mark.slow
def test_the_close_job_pages_past_rows_a_lagging_index_still_lists_and_closes_only_when_all_moved(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review F4: rows of issues the job moved already (the index lags) are replayed, count as done, and the job
    pages past them; it used to take a page of them for 'nothing left to move' and close with issues still in."""
    job = _start_close_job(world, monkeypatch, 27)
    _lagging_index(monkeypatch, calls=6)
    result = tasks.close_milestone.apply(args=job).get()
    assert result["result"] == {"moved": 27, "refused": 0, "closed": True}
    by_name = {m.name: m for m in _listed(world)}
    still_in = issues.status_list(tenant=world.slug, project_key="WEB", status="open", milestone=job[2], size=50)
    assert still_in.issues == []
    assert by_name["v1.2"].state == "closed"


@pytest.mark.slow
def test_the_close_job_leaves_the_milestone_open_when_issues_are_refused(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only real refusals (an issue changed meanwhile, read again and changed again) stop the job: it says which,
    and the milestone stays open with them in it."""
    job = _start_close_job(world, monkeypatch, 27)
    real = milestone_close._change_one

    def refuse_one(issue: Any, target: Any, token: str) -> Any:
        if int(issue.number) == 1:
            raise ChangedSinceRead("changed meanwhile")
        return real(issue, target, token)

    monkeypatch.setattr(milestone_close, "_change_one", refuse_one)
    result = tasks.close_milestone.apply(args=job).get()["result"]
    assert (result["moved"], result["refused"], result["closed"]) == (26, 1, False)
    assert result["refused_issues"] == {"WEB-1": "changed meanwhile"}
    assert {m.name: m.state for m in _listed(world)}["v1.2"] == "open"
    assert (load(world, 1) or object()).milestone == job[2]  # type: ignore[attr-defined]


def test_a_project_at_its_most_milestones_says_so_on_the_form_and_creates_none(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review F7 on the page: the cap (200; 2 here) is a form error naming what to do, not a milestone that no
    list shows."""
    monkeypatch.setattr(milestone_writes, "MILESTONES_MAX", 2)
    _milestone(world, "v1")
    _milestone(world, "v2")
    client = world.client_for(world.member)
    form = client.get(world.project_url("milestones/new/"))
    data = {"name": "v3", "due": "", "description": "", "idempotency_key": hidden_value(form, "idempotency_key")}
    response = client.post(world.project_url("milestones/new/"), data)
    assert response.status_code == 200
    assert "WEB has 2 milestones, the most a project keeps" in text(response)
    assert sorted(m.name for m in _listed(world)) == ["v1", "v2"]
