"""The labels a team manages (/t/<team>/labels/): create, edit, rename and delete with every issue following.

Members manage, viewers read (403 on every write page), another team's people get a 404. A stale
form is a 409 that changes nothing. A rename or delete of up to 25 issues is done in the request;
more go to the job ``label_change:<team>:<label>`` (progress on the labels page, resumable), and the
old name is refused meanwhile.
"""

from __future__ import annotations

from typing import Any

import pytest

from ddbmodels import events
from ddbmodels import labels as ddb_labels
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue, text
from tracker import tasks
from tracker.demo import labels as demo_labels
from tracker.selectors.activity import issue_stream
from tracker.services import labels as label_service


def _labels_of(world: World, number: int) -> set[str]:
    issue = load(world, number)
    assert issue is not None
    return set(issue.labels or ())


def _entries(world: World, label: str) -> list[tuple[str, int]]:
    return [ddb_labels.issue_of(item["s"]["S"]) for item in ddb_labels.label_entries(world.slug, label, limit=100)]


def _label(world: World, name: str) -> ddb_labels.Label:
    found = ddb_labels.label_get(world.slug, name)
    assert found is not None
    return found


def _kinds(world: World, number: int) -> list[str]:
    issue = load(world, number)
    assert issue is not None
    return [event.kind for event in events.stream_events_all(stream=issue_stream(issue))]


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The tasks the services queue (the broker is not consumed in these tests): run them with ``run_queued``."""
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(label_service.enqueue, "delay", lambda name, *args, **kw: calls.append((name, *args)))
    return calls


def run_queued(calls: list[tuple[Any, ...]]) -> dict[str, Any]:
    name, *args = calls.pop(0)
    assert name.endswith(".change_label")
    result = tasks.change_label.apply(args=args).get()
    assert isinstance(result, dict)
    return result


def test_a_member_creates_a_label_with_a_colour_and_the_list_shows_it_in_that_colour(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(world.url("labels/new/"), {"name": "Needs-Review", "colour": "teal", "description": "PRs"})
    assert response.status_code == 302
    label = _label(world, "needs-review")
    assert (label.colour, label.description, label.version) == ("teal", "PRs", 1)
    page = text(client.get(world.url("labels/")))
    assert 'class="label label-teal"' in page
    assert "needs-review" in page
    assert "PRs" in page
    again = client.post(world.url("labels/new/"), {"name": "needs-review", "colour": "red"})
    assert again.status_code == 200
    assert "already" in text(again)
    assert _label(world, "needs-review").colour == "teal"


def test_a_colour_outside_the_palette_is_refused_and_nothing_is_stored(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(world.url("labels/new/"), {"name": "bug", "colour": "#ff0000"})
    assert response.status_code == 200
    assert ddb_labels.label_get(world.slug, "bug") is None


def test_an_edit_from_a_stale_form_is_a_409_and_changes_nothing(world: World) -> None:
    client = world.client_for(world.member)
    client.post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    ok = client.post(world.url("labels/bug/edit/"), {"colour": "orange", "description": "broken", "version": "1"})
    assert ok.status_code == 302
    stale = client.post(world.url("labels/bug/edit/"), {"colour": "blue", "description": "", "version": "1"})
    assert stale.status_code == 409
    assert (_label(world, "bug").colour, _label(world, "bug").version) == ("orange", 2)


def test_a_viewer_reads_the_labels_and_may_change_none(world: World) -> None:
    world.client_for(world.member).post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    client = world.client_for(world.viewer)
    page = client.get(world.url("labels/"))
    assert page.status_code == 200
    assert "label-red" in text(page)
    assert "New label" not in text(page)
    assert "/labels/bug/rename/" not in text(page)
    for url, data in [
        ("labels/new/", {"name": "x", "colour": "red"}),
        ("labels/bug/edit/", {"colour": "blue", "version": "1"}),
        ("labels/bug/rename/", {"to": "defect", "version": "1", "confirm": "on"}),
        ("labels/bug/delete/", {"version": "1"}),
        ("labels/bug/resume/", {}),
    ]:
        assert client.post(world.url(url), data).status_code == 403, url
    assert _label(world, "bug").version == 1
    assert _label(world, "bug").in_use


def test_another_team_s_labels_are_not_found(world: World, other_world: World) -> None:
    world.client_for(world.member).post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    stranger = other_world.client_for(other_world.owner)
    assert stranger.get(world.url("labels/")).status_code == 404
    assert stranger.post(world.url("labels/bug/delete/"), {"version": "1"}).status_code == 404
    assert other_world.client_for(other_world.owner).get(other_world.url("labels/bug/edit/")).status_code == 404


def test_a_small_rename_says_how_many_issues_follow_then_moves_them_in_the_request(world: World) -> None:
    for n in range(3):
        new_issue(world, f"Crash {n}", labels={"bug", "ui"} if n else {"bug"})
    new_issue(world, "Other", labels={"ui"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    confirm = client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version})
    page = text(confirm)
    assert confirm.status_code == 200
    assert "<strong>3 issues</strong>" in page
    assert "about 33 in all" in page
    assert _labels_of(world, 1) == {"bug"}  # nothing yet
    done = client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version, "confirm": "on"})
    assert done.status_code == 302
    assert flash(done) == ["Renaming bug to defect: 3 issues changed."]
    assert [_labels_of(world, n) for n in (1, 2, 3, 4)] == [{"defect"}, {"defect", "ui"}, {"defect", "ui"}, {"ui"}]
    assert _entries(world, "bug") == []
    assert len(_entries(world, "defect")) == 3
    old = _label(world, "bug")
    assert (old.state, old.renamed_to) == ("gone", "defect")
    assert _label(world, "defect").in_use
    assert "issue.labels_renamed" in _kinds(world, 1)
    listing = text(client.get(world.url("labels/")))
    assert "renamed to" in listing
    assert f'href="/t/{world.slug}/labels/"' in text(client.get(world.url()))  # the team's page links here
    old_filter = text(client.get(world.project_url(), {"q": "label:bug"}))
    assert 'The label bug was renamed to <a href="?q=label%3Adefect">defect</a>.' in old_filter


def test_a_rename_from_a_stale_confirm_page_is_a_409_and_moves_nothing(world: World) -> None:
    new_issue(world, "Crash", labels={"bug"})
    client = world.client_for(world.member)
    stale = _label(world, "bug").version
    client.post(world.url("labels/bug/edit/"), {"colour": "red", "description": "", "version": stale})
    response = client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": stale, "confirm": "on"})
    assert response.status_code == 409
    assert _labels_of(world, 1) == {"bug"}
    assert _label(world, "bug").in_use


def test_a_delete_lists_the_issues_that_lose_the_label_first_then_takes_it_off_them(world: World) -> None:
    new_issue(world, "Crash on save", labels={"bug", "ui"})
    new_issue(world, "Slow page", labels={"perf"})
    client = world.client_for(world.member)
    page = client.get(world.url("labels/bug/delete/"))
    body = text(page)
    assert "<strong>1 issue</strong> loses the label" in body
    assert "WEB-1</a> Crash on save" in body
    assert "Slow page" not in body
    assert _labels_of(world, 1) == {"bug", "ui"}
    done = client.post(world.url("labels/bug/delete/"), {"version": _label(world, "bug").version})
    assert done.status_code == 302
    assert _labels_of(world, 1) == {"ui"}
    assert _labels_of(world, 2) == {"perf"}
    gone = _label(world, "bug")
    assert (gone.state, gone.renamed_to) == ("gone", "")
    assert "bug" in ddb_labels.team_labels(world.slug)  # the registry item stays (offboarding relies on it)


def test_a_large_rename_runs_as_a_job_with_progress_and_the_old_name_is_refused_meanwhile(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    count = label_service.IN_REQUEST_MAX + 5
    for n in range(count):
        new_issue(world, f"Crash {n}", labels={"bug"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    confirm = text(client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version}))
    assert f"<strong>More than {label_service.IN_REQUEST_MAX} issues</strong>" in confirm
    assert "in the background" in confirm
    done = client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": version, "confirm": "on"})
    assert done.status_code == 302
    assert "in the background" in flash(done)[0]
    assert len(queued) == 1
    assert _labels_of(world, 1) == {"bug"}
    busy = _label(world, "bug")
    assert (busy.state, busy.total, busy.done) == ("renaming", 0, 0)  # more than one page: the job counts them
    listing = text(client.get(world.url("labels/")))
    assert "is being renamed to <strong>defect</strong>" in listing
    assert "0 issues done; counting how many in all." in listing
    # meanwhile, an issue form cannot give an issue the old name (typed or ticked), and nothing is created
    for labels, why in (({"labels": "bug"}, "“bug” is being renamed"), ({"picked": ["bug"]}, "not one of the")):
        refused = client.post(world.project_url("new/"), {"title": "New crash", "priority": "medium", **labels})
        assert refused.status_code == 200
        assert why in text(refused)  # a busy label is no checkbox: a stale form's tick is refused
    assert load(world, count + 1) is None
    # the job stops after one batch (a worker lost) and a resume finishes it
    label_service.label_move(tenant=world.slug, label=busy, actor="member", limit=1)
    assert _label(world, "bug").done == label_service.BATCH
    assert len(_entries(world, "bug")) == count - 25
    assert client.post(world.url("labels/bug/resume/")).status_code == 302
    result = run_queued(queued)
    assert result["status"] == "done"
    assert result["result"]["state"] == "gone"
    assert len(_entries(world, "defect")) == count
    assert _entries(world, "bug") == []
    assert all(_labels_of(world, n) == {"defect"} for n in range(1, count + 1))


def test_labels_show_in_their_colour_on_the_lists_and_the_issue_page_and_link_to_the_filtered_list(
    world: World,
) -> None:
    new_issue(world, "Crash on save", labels={"bug", "ui"})
    client = world.client_for(world.member)
    client.post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    chip = '<a class="label label-red" href="?q=label%3Abug"'
    for url in (world.project_url(), world.url("issues/")):
        page = text(client.get(url))
        assert chip in page, url
        assert '<a class="label label-grey" href="?q=label%3Aui"' in page, url  # a label never given a colour
        assert "tracker/labels.css" in page
    issue_page = text(client.get(world.project_url("1/")))
    assert f'<a class="label label-red" href="/t/{world.slug}/p/WEB/?q=label%3Abug"' in issue_page
    assert "tracker/labels.css" in issue_page


def test_the_issue_forms_offer_the_team_s_labels_as_checkboxes_and_a_member_may_type_a_new_one(world: World) -> None:
    client = world.client_for(world.member)
    client.post(world.url("labels/new/"), {"name": "bug", "colour": "red"})
    client.post(world.url("labels/new/"), {"name": "ui", "colour": "purple"})
    form = text(client.get(world.project_url("new/")))
    assert 'name="picked" value="bug"' in form
    assert '<span class="label label-red">bug</span>' in form
    made = client.post(
        world.project_url("new/"),
        {"title": "Crash", "priority": "medium", "picked": ["bug"], "labels": "Needs-Triage"},
    )
    assert made.status_code == 302
    assert _labels_of(world, 1) == {"bug", "needs-triage"}
    assert "needs-triage" in ddb_labels.team_labels(world.slug)  # registered: the labels page lists it
    assert "needs-triage" in text(client.get(world.url("labels/")))
    edit = text(client.get(world.project_url("1/edit/")))
    assert 'name="picked" value="bug" class="label-pick" id="id_picked_0" checked' in edit
    version = load(world, 1).version  # type: ignore[union-attr]
    saved = client.post(
        world.project_url("1/edit/"),
        {"title": "Crash", "priority": "medium", "picked": ["ui"], "labels": "", "version": version},
    )
    assert saved.status_code == 302
    assert _labels_of(world, 1) == {"ui"}  # bug and needs-triage unticked, ui ticked


def test_the_demo_colours_the_team_s_labels_once_and_leaves_a_colour_chosen_since(world: World) -> None:
    new_issue(world, "Crash", labels={"bug", "ux"})
    done = demo_labels.labels_seed(world.slug)
    assert done == [f"labels coloured: {', '.join(demo_labels.LABELS)}"]
    assert (_label(world, "bug").colour, _label(world, "ux").colour) == ("red", "purple")
    assert _label(world, "a11y").description  # a label no issue has yet is created too
    client = world.client_for(world.member)
    client.post(world.url("labels/bug/edit/"), {"colour": "pink", "description": "", "version": "1"})
    assert demo_labels.labels_seed(world.slug) == []
    assert _label(world, "bug").colour == "pink"


def test_a_run_stopped_between_an_issue_and_its_label_entries_is_finished_by_the_next_run(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job stopped (worker killed, throttled) after an issue's update, before its entries moved: the issue
    holds this rename's token, its old entry stays. The next run finds it replayed and repairs the entry."""
    from ddbmodels.issues import writes

    for n in range(2):
        new_issue(world, f"Crash {n}", labels={"bug"})
    client = world.client_for(world.member)
    client.post(world.url("labels/new/"), {"name": "defect", "colour": "red"})
    busy = ddb_labels.label_mark(
        world.slug,
        "bug",
        state=ddb_labels.RENAMING,
        expected_version=_label(world, "bug").version,
        renamed_to="defect",
        total=2,
    )
    real = writes.entries_move

    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("worker lost between the issue and its entries")

    monkeypatch.setattr(writes, "entries_move", stopped)
    with pytest.raises(RuntimeError):
        label_service.label_move(tenant=world.slug, label=busy, actor="member")
    monkeypatch.setattr(writes, "entries_move", real)
    assert _labels_of(world, 1) == {"defect"}  # the issue moved, its entry did not
    assert _entries(world, "bug")[0] == ("WEB", 1)
    label_service.label_move(tenant=world.slug, label=_label(world, "bug"), actor="member")
    assert _entries(world, "bug") == []
    assert sorted(_entries(world, "defect")) == [("WEB", 1), ("WEB", 2)]
    assert (_label(world, "bug").state, _label(world, "bug").renamed_to) == ("gone", "defect")
    assert [_labels_of(world, n) for n in (1, 2)] == [{"defect"}, {"defect"}]


def test_the_confirm_page_counts_one_page_of_issues_at_most_and_speaks_plainly(world: World) -> None:
    count = label_service.IN_REQUEST_MAX + 5
    for n in range(count):
        new_issue(world, f"Crash {n}", labels={"bug"})
    client = world.client_for(world.member)
    page = text(client.post(world.url("labels/bug/rename/"), {"to": "defect", "version": _label(world, "bug").version}))
    assert f"<strong>More than {label_service.IN_REQUEST_MAX} issues</strong> change from bug to defect" in page
    assert "about 11 small writes an issue" in page
    for jargon in ("write unit", "list entries", "label entries", "RCU", "WCU"):
        assert jargon not in page, jargon
    delete = text(client.get(world.url("labels/bug/delete/")))
    assert f"<strong>More than {label_service.IN_REQUEST_MAX} issues</strong> lose the label" in delete


def test_a_confirm_sent_twice_says_it_is_done_or_under_way_not_changed_since(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    new_issue(world, "Crash", labels={"bug", "docs"})
    client = world.client_for(world.member)
    version = _label(world, "bug").version
    form = {"to": "defect", "version": version, "confirm": "on"}
    assert flash(client.post(world.url("labels/bug/rename/"), form)) == ["Renaming bug to defect: 1 issue changed."]
    again = client.post(world.url("labels/bug/rename/"), form)
    assert again.status_code == 302
    assert flash(again)[-1:] == ["You renamed bug to defect already; nothing more done."]
    docs = _label(world, "docs").version
    assert client.post(world.url("labels/docs/delete/"), {"version": docs}).status_code == 302
    twice = client.post(world.url("labels/docs/delete/"), {"version": docs})
    assert twice.status_code == 302
    assert flash(twice)[-1:] == ["You deleted docs already; nothing more done."]
    for n in range(label_service.IN_REQUEST_MAX + 1):
        new_issue(world, f"Slow {n}", labels={"perf"})
    perf = {"to": "speed", "version": _label(world, "perf").version, "confirm": "on"}
    client.post(world.url("labels/perf/rename/"), perf)
    under_way = client.post(world.url("labels/perf/rename/"), perf)
    assert under_way.status_code == 302
    assert flash(under_way)[-1:] == ["You started renaming perf to speed already; nothing more done."]
    assert len(queued) == 1  # the second send queued nothing


def test_a_label_others_are_being_renamed_to_cannot_be_renamed_or_deleted_meanwhile(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    for n in range(label_service.IN_REQUEST_MAX + 1):
        new_issue(world, f"Crash {n}", labels={"bug"})
    new_issue(world, "Flaky", labels={"defect"})
    client = world.client_for(world.member)
    client.post(
        world.url("labels/bug/rename/"), {"to": "defect", "version": _label(world, "bug").version, "confirm": "on"}
    )
    assert _label(world, "bug").state == "renaming"
    version = _label(world, "defect").version
    refused = client.post(world.url("labels/defect/rename/"), {"to": "flaw", "version": version, "confirm": "on"})
    assert refused.status_code == 200
    assert "Bug is being renamed to defect: wait until it is done." in text(refused)
    deleted = client.post(world.url("labels/defect/delete/"), {"version": version})
    assert deleted.status_code == 200
    assert "Bug is being renamed to defect: wait until it is done." in text(deleted)
    assert _label(world, "defect").in_use
    assert len(queued) == 1
    run_queued(queued)
    assert _label(world, "bug").state == "gone"
    assert all("defect" in _labels_of(world, n) for n in range(1, label_service.IN_REQUEST_MAX + 3))


def test_the_progress_of_a_running_change_is_a_small_json_answer_for_the_labels_page(
    world: World, queued: list[tuple[Any, ...]]
) -> None:
    for n in range(label_service.IN_REQUEST_MAX + 5):
        new_issue(world, f"Crash {n}", labels={"bug"})
    client = world.client_for(world.member)
    client.post(
        world.url("labels/bug/rename/"), {"to": "defect", "version": _label(world, "bug").version, "confirm": "on"}
    )
    page = text(client.get(world.url("labels/")))
    assert f'data-progress="/t/{world.slug}/labels/bug/progress/"' in page
    assert "tracker/labels.js" in page
    ddb_labels.label_progress(world.slug, "bug", done=25)
    answer = client.get(world.url("labels/bug/progress/"))
    assert answer.status_code == 200
    assert answer.json() == {"name": "bug", "state": "renaming", "done": 25, "total": 0, "busy": True}  # not counted
    run_queued(queued)
    assert client.get(world.url("labels/bug/progress/")).json()["busy"] is False
    assert world.client_for(world.viewer).get(world.url("labels/bug/progress/")).status_code == 200
    assert client.get(world.url("labels/nope/progress/")).status_code == 404
