"""Bulk edit from a project's list (POST /t/<team>/p/<KEY>/bulk/): every row on the version its list showed.

A resubmitted form changes nothing twice and says so; an issue changed since the list was loaded,
or a move the workflow forbids, is refused alone; bad input (too many issues, a viewer as assignee,
a label that is not one) is refused whole and changes nothing; viewers get a 403, other teams a 404.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from ddbmodels import events, issues, milestones, scores
from ddbmodels import labels as ddb_labels
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, text, unchanged, version_of
from tracker.selectors.activity import issue_stream
from tracker.selectors.labels import label_catalogue
from tracker.selectors.milestones import milestones_cache_key
from tracker.services import bulk as bulk_services


def _list_form(client: Client, world: World, query: str = "") -> tuple[str, dict[int, int]]:
    """The project list's bulk form as the page renders it: its key, and each row's number → version."""
    page = client.get(world.project_url(query))
    assert page.status_code == 200
    rows = {
        int(n): int(v)
        for n, v in re.findall(r'<input type="hidden" name="v(\d+)" value="(\d+)" form="bulk">', text(page))
    }
    return hidden_value(page, "idempotency_key"), rows


def _post(client: Client, world: World, key: str, versions: dict[int, int], **change: Any) -> Any:
    data: dict[str, Any] = {"idempotency_key": key, "n": [str(n) for n in versions], **change}
    data.update({f"v{n}": str(v) for n, v in versions.items()})
    data.setdefault("next", world.project_url("?q=is%3Aopen"))
    return client.post(world.project_url("bulk/"), data)


def _kinds(world: World, number: int) -> list[str]:
    issue = load(world, number)
    assert issue is not None
    return [event.kind for event in events.stream_events_all(stream=issue_stream(issue))]


def test_members_see_the_bulk_bar_and_a_box_per_row_on_a_project_list_only(world: World) -> None:
    new_issue(world, "One")
    new_issue(world, "Two")
    member = world.client_for(world.member)
    page = text(member.get(world.project_url()))
    assert '<form id="bulk"' in page
    assert page.count('name="n"') == 2
    assert 'form="bulk"' in page
    assert page.count("<form") == page.count("</form>")  # no form inside another
    viewer_page = text(world.client_for(world.viewer).get(world.project_url()))
    assert '<form id="bulk"' not in viewer_page
    assert 'name="n"' not in viewer_page
    team_page = text(member.get(world.url("issues/")))
    assert '<form id="bulk"' not in team_page
    assert 'name="n"' not in team_page


def test_a_change_applies_to_every_chosen_issue_and_says_so_on_the_same_list(world: World) -> None:
    for title in ("One", "Two", "Three"):
        new_issue(world, title, labels=["ui"])
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    chosen = {n: rows[n] for n in (1, 3)}
    response = _post(
        member,
        world,
        key,
        chosen,
        status="in_progress",
        assignee=world.owner.username,
        priority="high",
        labels_add="bug, perf",
        labels_remove="ui",
    )
    assert response.status_code == 302
    assert response["Location"] == world.project_url("?q=is%3Aopen")
    assert flash(response) == [
        f"Changed WEB-1, WEB-3: now In progress; assigned to {world.owner.username}; priority High; "
        "labelled bug, perf; no longer labelled ui."
    ]
    for number in (1, 3):
        issue = load(world, number)
        assert issue is not None
        assert (issue.status, issue.assignee, issue.priority, issue.labels) == (
            "in_progress",
            world.owner.username,
            "high",
            {"bug", "perf"},
        )
        assert _kinds(world, number) == [events.Kind.ISSUE_STATUS, events.Kind.ISSUE_EDITED]
    two = load(world, 2)
    assert two is not None
    assert (two.status, two.labels, two.version) == ("open", {"ui"}, 1)
    listed = issues.label_list(tenant=world.slug, label="perf", status="in_progress")
    assert [issue.reference for issue in listed.issues] == ["WEB-3", "WEB-1"]


def test_the_same_form_sent_again_changes_nothing_and_says_it_was_already_done(world: World) -> None:
    for title in ("One", "Two"):
        new_issue(world, title)
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    first = _post(member, world, key, rows, status="resolved", labels_add="bug")
    assert flash(first) == ["Changed WEB-1, WEB-2: now Resolved; labelled bug."]
    assert "Changed WEB-1, WEB-2: now Resolved; labelled bug." in text(
        member.get(first["Location"])
    )  # shown on the list, after the redirect
    versions = {n: version_of(world, n) for n in rows}
    # Each row's change recorded again under its own keys (its first send may have stopped before recording it):
    # the 2 events of each of the 2 rows refused as there already, nothing else written (H6: R22-1 for changes).
    with unchanged(world, failed_writes=4) as meter:
        again = _post(member, world, key, rows, status="resolved", labels_add="bug")
    assert (meter.by_operation.get("PutItem"), meter.conditional_failures) == (4, 4)
    assert again.status_code == 302
    assert flash(again) == ["Already done by this form (sent before): WEB-1, WEB-2; nothing changed twice."]
    assert {n: version_of(world, n) for n in rows} == versions
    assert _kinds(world, 1) == [events.Kind.ISSUE_STATUS, events.Kind.ISSUE_EDITED]


def test_an_issue_changed_since_the_list_was_loaded_is_refused_alone(world: World) -> None:
    for title in ("One", "Two", "Three"):
        new_issue(world, title)
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    two = load(world, 2)
    assert two is not None
    issues.issue_change_status(two, to="closed")  # somebody else, meanwhile
    response = _post(member, world, key, rows, priority="urgent")
    assert flash(response) == [
        "Changed WEB-1, WEB-3: priority Urgent.",
        "Not changed: WEB-2 (changed since the list was loaded).",
    ]
    two_now = load(world, 2)
    assert two_now is not None
    assert (two_now.status, two_now.priority) == ("closed", "medium")
    assert [load(world, n).priority for n in (1, 3)] == ["urgent", "urgent"]  # type: ignore[union-attr]


def test_a_move_the_workflow_forbids_is_refused_for_that_row_and_unchanged_rows_are_named(world: World) -> None:
    for title in ("One", "Two", "Three"):
        new_issue(world, title)
    closed = load(world, 2)
    assert closed is not None
    issues.issue_change_status(closed, to="closed")
    resolved = load(world, 3)
    assert resolved is not None
    issues.issue_change_status(resolved, to="resolved")
    member = world.client_for(world.member)
    key, rows = _list_form(member, world, "?q=is%3Aclosed")
    _, more = _list_form(member, world, "?q=is%3Aresolved")
    _, opened = _list_form(member, world)
    rows.update(more)
    rows.update(opened)
    response = _post(member, world, key, rows, status="resolved")
    assert flash(response) == [
        "Changed WEB-1: now Resolved.",
        "Already as asked, left alone: WEB-3.",
        "Not changed: WEB-2 (closed → resolved is not a move).",
    ]
    assert [load(world, n).status for n in (1, 2, 3)] == ["resolved", "closed", "resolved"]  # type: ignore[union-attr]


def test_more_than_fifty_issues_are_refused_whole(world: World) -> None:
    new_issue(world, "One")
    member = world.client_for(world.member)
    key, _ = _list_form(member, world)
    too_many = dict.fromkeys(range(1, bulk_services.MAX_ISSUES + 2), 1)
    with unchanged(world):
        response = _post(member, world, key, too_many, status="closed")
    assert response.status_code == 302
    assert flash(response) == ["At most 50 issues at a time; 51 were chosen. Nothing was changed."]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"status": "closed", "assignee": "VIEWER"}, "VIEWER cannot be assigned: only members and owners can."),
        ({"labels_add": "no/slash"}, "Label “no/slash”: up to 30 letters, digits, dots, dashes or underscores."),
        ({}, "Choose what to change."),
    ],
)
def test_bad_input_is_refused_whole_and_changes_nothing(world: World, change: dict[str, str], said: str) -> None:
    new_issue(world, "One")
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    if change.get("assignee") == "VIEWER":
        change = {**change, "assignee": world.viewer.username}
        said = said.replace("VIEWER", world.viewer.username)
    with unchanged(world):
        response = _post(member, world, key, rows, **change)
    assert flash(response) == [f"{said} Nothing was changed."]


def test_no_issue_chosen_is_refused(world: World) -> None:
    new_issue(world, "One")
    member = world.client_for(world.member)
    key, _ = _list_form(member, world)
    with unchanged(world):
        response = _post(member, world, key, {}, status="closed")
    assert flash(response) == ["Choose at least one issue. Nothing was changed."]


@pytest.mark.parametrize(
    ("post", "said"),
    [
        ({"n": ["1"]}, "This form is damaged (an issue without its version); reload the page."),
        ({"n": ["1"], "v1": "x"}, "This form is damaged (an issue without its version); reload the page."),
        ({"n": ["one"], "v1": "1"}, "This form is damaged (an issue without its version); reload the page."),
        ({"n": ["1"], "v1": ["1", "2"]}, "This form is damaged (an issue without its version); reload the page."),
        ({"n": ["1", "01"], "v1": "1", "v01": "1"}, "This form is damaged (issue 1 chosen twice); reload the page."),
        ({"n": ["1"], "v1": "1", "status": "sideways"}, "sideways is not one of the available choices."),
        ({"n": ["1"], "v1": "1", "priority": "whenever"}, "whenever is not one of the available choices."),
    ],
)
def test_a_post_no_bar_sends_is_a_400_page_that_changes_nothing(world: World, post: dict[str, Any], said: str) -> None:
    """Tampered or broken on the way (a row without its version, a number twice, a status not offered): a 400 page
    saying so, with the way back to the list — not the list's message, which is for what a person chose."""
    new_issue(world, "One")
    member = world.client_for(world.member)
    key, _ = _list_form(member, world)
    with unchanged(world):
        response = member.post(
            world.project_url("bulk/"),
            {"idempotency_key": key, "status": "closed", "next": world.project_url("?q=is%3Aopen"), **post},
        )
    assert response.status_code == 400
    page = text(response)
    assert said in page
    assert "Nothing was changed." in page
    assert f'href="{world.project_url("?q=is%3Aopen")}"' in page


def test_a_label_the_team_renamed_deleted_or_is_renaming_is_refused_whole_naming_the_new_name(world: World) -> None:
    """The bulk bar and the issue page's label form (which posts to it) refuse what the issue form refuses."""
    new_issue(world, "One", labels=["bug", "old"])
    new_issue(world, "Two", labels=["ui"])
    member = world.client_for(world.member)
    renamed = member.post(
        world.url("labels/bug/rename/"),
        {"to": "defect", "version": ddb_labels.label_get(world.slug, "bug").version, "confirm": "on"},  # type: ignore[union-attr]
    )
    assert renamed.status_code == 302
    deleted = member.post(
        world.url("labels/old/delete/"),
        {"version": ddb_labels.label_get(world.slug, "old").version, "confirm": "on"},  # type: ignore[union-attr]
    )
    assert deleted.status_code == 302
    ddb_labels.label_mark(
        world.slug,
        "ui",
        state=ddb_labels.RENAMING,
        expected_version=ddb_labels.label_get(world.slug, "ui").version,  # type: ignore[union-attr]
        renamed_to="interface",
        total=1,
    )
    label_catalogue(tenant=world.tenant, fresh=True)  # the rename's start drops the cache; label_mark alone does not
    for typed, said in (
        ("bug", "“bug” was renamed to “defect”."),
        ("Old", "“old” was deleted; a member can create it again on the labels page."),
        ("perf, ui", "“ui” is being renamed; choose another label or try again when that is done."),
    ):
        key, rows = _list_form(member, world)
        with unchanged(world):
            response = _post(member, world, key, {2: rows[2]}, labels_add=typed)
        assert flash(response) == [f"{said} Nothing was changed."]
        member.get(response["Location"])
    assert [set(load(world, n).labels or ()) for n in (1, 2)] == [{"defect"}, {"ui"}]  # type: ignore[union-attr]
    assert ddb_labels.label_get(world.slug, "bug").state == ddb_labels.GONE  # type: ignore[union-attr]


def test_labels_are_lower_cased_as_the_issue_form_does_and_a_stored_capital_one_can_be_removed(world: World) -> None:
    new_issue(world, "One", labels=["bug"])
    new_issue(world, "Two")
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    added = _post(member, world, key, rows, labels_add="Bug, UI")
    assert flash(added) == ["Changed WEB-1, WEB-2: labelled bug, ui."]
    member.get(added["Location"])
    assert [load(world, n).labels for n in (1, 2)] == [{"bug", "ui"}, {"bug", "ui"}]  # type: ignore[union-attr]
    assert "Bug" not in ddb_labels.team_labels(world.slug)
    key, rows = _list_form(member, world)
    assert flash(_post(member, world, key, rows, labels_remove="UI")) == [
        "Changed WEB-1, WEB-2: no longer labelled ui."
    ]
    assert [load(world, n).labels for n in (1, 2)] == [{"bug"}, {"bug"}]  # type: ignore[union-attr]


def test_the_same_bar_sent_again_with_another_change_is_not_taken_for_the_first(world: World) -> None:
    """Back to the list, the same rendered bar (same key), another choice: not "already done by this form"."""
    for title in ("One", "Two"):
        new_issue(world, title)
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    first = _post(member, world, key, rows, priority="high")
    assert flash(first) == ["Changed WEB-1, WEB-2: priority High."]
    member.get(first["Location"])  # the list shows the message (and so no later answer repeats it)
    again = _post(member, world, key, rows, priority="low")  # the rows' versions as that page showed them
    assert flash(again) == [
        "Not changed: WEB-1 (changed since the list was loaded); WEB-2 (changed since the list was loaded)."
    ]
    member.get(again["Location"])
    now = {n: version_of(world, n) for n in rows}
    applied = _post(member, world, key, now, priority="low")  # the same key on the versions as they are now
    assert flash(applied) == ["Changed WEB-1, WEB-2: priority Low."]
    assert [load(world, n).priority for n in (1, 2)] == ["low", "low"]  # type: ignore[union-attr]
    member.get(applied["Location"])
    with unchanged(world, failed_writes=2):  # each row's event recorded again, refused as there already (H6)
        replay = _post(member, world, key, now, priority="low")  # that same submission once more: replayed
    assert flash(replay) == ["Already done by this form (sent before): WEB-1, WEB-2; nothing changed twice."]


def test_unassigning_and_an_outside_next_goes_back_to_the_project_list(world: World) -> None:
    new_issue(world, "One", assignee=world.member.username)
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    response = _post(member, world, key, rows, assignee="!nobody", next="https://evil.example/t/")
    assert response["Location"] == world.project_url()
    one = load(world, 1)
    assert one is not None
    assert one.assignee is None


def test_the_counts_are_scheduled_once_for_the_project(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    for title in ("One", "Two", "Three"):
        new_issue(world, title)
    scheduled: list[str] = []
    monkeypatch.setattr(bulk_services, "schedule_counts", lambda project: scheduled.append(project.project_key))
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    _post(member, world, key, rows, status="in_progress")
    assert scheduled == ["WEB"]
    _post(member, world, *_list_form(member, world, "?q=is%3Ain_progress"), priority="low")
    assert scheduled == ["WEB"]  # no status moved: the counts stay


def test_viewers_get_a_403_and_other_teams_a_404_changing_nothing(world: World, other_world: World) -> None:
    new_issue(world, "One")
    member = world.client_for(world.member)
    key, rows = _list_form(member, world)
    with unchanged(world):
        assert _post(world.client_for(world.viewer), world, key, rows, status="closed").status_code == 403
    outsider = other_world.client_for(other_world.owner)
    with unchanged(world, other_world):
        assert _post(outsider, world, key, rows, status="closed").status_code == 404
    assert member.get(world.project_url("bulk/")).status_code == 405


def test_a_label_list_is_a_bulk_form_too_its_rows_carry_their_versions(world: World) -> None:
    new_issue(world, "One", labels=["ui"])
    new_issue(world, "Two")
    new_issue(world, "Three", labels=["ui"])
    member = world.client_for(world.member)
    key, rows = _list_form(member, world, "?q=label%3Aui")
    assert rows == {3: 1, 1: 1}  # from the label's entries, each with its issue's version
    response = _post(member, world, key, rows, labels_remove="ui", labels_add="bug")
    assert flash(response) == ["Changed WEB-1, WEB-3: labelled bug; no longer labelled ui."]
    assert [issue.reference for issue in issues.label_list(tenant=world.slug, label="ui", status="open").issues] == []


def test_resolving_in_bulk_awards_the_assignees_and_reopening_takes_it_back(world: World) -> None:
    new_issue(world, "One", assignee=world.member.username, priority="urgent")
    new_issue(world, "Two", assignee=world.owner.username, priority="low")
    member = world.client_for(world.member)

    def points(username: str) -> int:
        item = scores.score_get(tenant=world.slug, username=username)
        return int(item.score) if item is not None else 0

    _post(member, world, *_list_form(member, world), status="resolved")
    assert (points(world.member.username), points(world.owner.username)) == (5, 1)
    _post(member, world, *_list_form(member, world, "?q=is%3Aresolved"), status="open")
    assert (points(world.member.username), points(world.owner.username)) == (0, 0)


def _milestone(world: World, name: str, *, closed: bool = False) -> milestones.MilestoneItem:
    item, _ = milestones.milestone_create(
        tenant=world.slug, project_key=world.project_key, name=name, due=None, created_by=world.member.username
    )
    if closed:
        item = milestones.milestone_set_state(item, state="closed", expected_version=int(item.version))
    cache.delete(milestones_cache_key(world.slug, world.project_key))  # as the milestone services do
    return item


def test_the_bar_offers_the_projects_open_milestones_and_moves_the_chosen_issues_in_and_out(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    v12 = _milestone(world, "v1.2")
    _milestone(world, "v1.1", closed=True)
    for title in ("One", "Two", "Three"):
        new_issue(world, title)
    scheduled: list[str] = []
    monkeypatch.setattr(bulk_services, "schedule_counts", lambda project: scheduled.append(project.project_key))
    member = world.client_for(world.member)
    page = text(member.get(world.project_url()))
    offered = re.findall(
        r'<option value="([^"]*)">([^<]*)</option>', page.split('id="bulk-milestone"')[1].split("</select>")[0]
    )
    assert offered == [("", "Milestone…"), ("!none", "— none —"), (v12.milestone_id, "v1.2")]  # not the closed v1.1
    key, rows = _list_form(member, world)
    moved = _post(member, world, key, {n: rows[n] for n in (1, 3)}, milestone=v12.milestone_id)
    assert flash(moved) == ["Changed WEB-1, WEB-3: in milestone v1.2."]
    member.get(moved["Location"])
    assert [load(world, n).milestone for n in (1, 2, 3)] == [v12.milestone_id, None, v12.milestone_id]  # type: ignore[union-attr]
    assert scheduled == ["WEB"]  # the milestone's counts
    assert "put it in milestone v1.2" in text(member.get(world.project_url("1/")))
    key, rows = _list_form(member, world)
    out = _post(member, world, key, {n: rows[n] for n in (1, 2)}, milestone="!none")
    assert flash(out) == ["Changed WEB-1: out of its milestone.", "Already as asked, left alone: WEB-2."]
    assert [load(world, n).milestone for n in (1, 3)] == [None, v12.milestone_id]  # type: ignore[union-attr]
    assert "took it out of milestone v1.2" in text(member.get(world.project_url("1/")))


def test_a_closed_or_unknown_milestone_is_refused_whole(world: World) -> None:
    closed = _milestone(world, "v1.1", closed=True)
    new_issue(world, "One")
    member = world.client_for(world.member)
    for milestone in (closed.milestone_id, milestones.new_milestone_id()):
        key, rows = _list_form(member, world)
        with unchanged(world):
            response = _post(member, world, key, rows, milestone=milestone)
        assert flash(response) == [
            "That milestone is closed or no longer exists; choose an open one. Nothing was changed."
        ]
        member.get(response["Location"])
