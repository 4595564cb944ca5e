"""The edit form's milestone: the project's open milestones (and the issue's own, even closed) to choose from; a
save moves the issue's milestone and its ``milestone_status`` key on the version the editor loaded; a stale edit
keeps the other person's milestone move as it keeps their other changes; the history says it as the side form does."""

from __future__ import annotations

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core.errors import ChangedSinceRead, MilestoneNotOpen
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue, references, text, unchanged
from tests.tracker.test_issue_edit_keeps import _FormValues, edit_as_a_browser, form_of, history
from tests.tracker.test_milestones_pages import _milestone
from tracker.models import Membership
from tracker.services import issues as issue_services


def _closed(world: World, name: str) -> milestones.MilestoneItem:
    made = _milestone(world, name)
    return milestones.milestone_set_state(made, state="closed", expected_version=int(made.version))


def _in(world: World, issue: issues.IssueItem, milestone: milestones.MilestoneItem) -> issues.IssueItem:
    """``issue`` in ``milestone``; a closed one is opened for the move and closed again (a write into a closed
    milestone is refused: ddbmodels.issues.guarded), as when the issue was put in before its close."""
    now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=milestone.milestone_id)
    assert now is not None
    if now.state != "open":
        now = milestones.milestone_set_state(now, state="open", expected_version=int(now.version))
    moved = issues.issue_change(issue, token=f"put-{issue.number}", milestone=milestone.milestone_id).issue
    if milestone.state != "open":
        milestones.milestone_set_state(now, state=milestone.state, expected_version=int(now.version))
    return moved


def test_the_edit_form_offers_the_open_milestones_and_the_issues_own_closed_one(world: World) -> None:
    v12, v13, old = _milestone(world, "v1.2"), _milestone(world, "v1.3"), _closed(world, "v0.9")
    other = _closed(world, "v0.8")
    issue = _in(world, new_issue(world, "Shipped in 0.9"), old)
    form = form_of(world.client_for(world.member), world.project_url(f"{issue.number}/edit/"))
    assert form.options["milestone"] == [
        ("", "— none —", False),
        (old.milestone_id, "v0.9 (closed)", True),  # the issue's own: kept as it is, never offered anew
        (v12.milestone_id, "v1.2", False),
        (v13.milestone_id, "v1.3", False),
    ]
    assert other.milestone_id not in {value for value, _, _ in form.options["milestone"]}
    fresh = form_of(world.client_for(world.member), world.project_url(f"{new_issue(world).number}/edit/"))
    assert fresh.options["milestone"][0] == ("", "— none —", True)


def test_an_edit_moves_the_issue_to_another_milestone_and_its_list_follows(world: World) -> None:
    v12, v13 = _milestone(world, "v1.2"), _milestone(world, "v1.3")
    issue = _in(world, new_issue(world, "Sign-in"), v12)
    client = world.client_for(world.member)

    response = edit_as_a_browser(client, world, int(issue.number), milestone=v13.milestone_id, priority="high")

    assert response.status_code == 302
    assert flash(response) == [f"Saved {issue.reference}."]
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.milestone, after.priority, int(after.version)) == (v13.milestone_id, "high", int(issue.version) + 1)
    assert after.list_milestone_status == f"{world.slug}#WEB#{v13.milestone_id}#open"  # its milestone_status key
    assert references(client.get(world.project_url(), {"q": 'milestone:"v1.3"'})) == [int(issue.number)]
    assert references(client.get(world.project_url(), {"q": 'milestone:"v1.2"'})) == []
    assert history(client, world, int(issue.number))[:2] == [  # one event, a line a change
        f"{world.member.username} changed the priority from Medium to High",
        f"{world.member.username} moved it from milestone v1.2 to v1.3",
    ]

    assert edit_as_a_browser(client, world, int(issue.number), milestone="").status_code == 302
    out = load(world, int(issue.number))
    assert out is not None
    assert (out.milestone, out.list_milestone_status) == (None, None)
    assert history(client, world, int(issue.number))[0] == f"{world.member.username} took it out of milestone v1.3"


def test_an_edit_keeps_a_closed_milestone_and_an_old_form_without_the_select_changes_none(world: World) -> None:
    old = _closed(world, "v0.9")
    issue = _in(world, new_issue(world, "Shipped"), old)
    client = world.client_for(world.member)
    assert edit_as_a_browser(client, world, int(issue.number), title="Shipped in 0.9").status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.title, after.milestone) == ("Shipped in 0.9", old.milestone_id)
    assert "milestone" not in history(client, world, int(issue.number))[0]
    values = form_of(client, world.project_url(f"{issue.number}/edit/")).values
    del values["milestone"]  # a form rendered before the select existed sends none: it leaves the milestone alone
    assert client.post(world.project_url(f"{issue.number}/edit/"), {**values, "title": "Again"}).status_code == 302
    again = load(world, int(issue.number))
    assert again is not None
    assert (again.title, again.milestone) == ("Again", old.milestone_id)


def test_a_closed_milestone_is_not_a_choice_and_the_service_refuses_it(world: World) -> None:
    old = _closed(world, "v0.9")
    _milestone(world, "v1.2")
    issue = new_issue(world, "Not into a closed one")
    client = world.client_for(world.member)
    with unchanged(world):
        response = edit_as_a_browser(client, world, int(issue.number), milestone=old.milestone_id)
    assert response.status_code == 200
    assert "That milestone is not open any more (or not this project&#x27;s): choose another." in text(response)
    with unchanged(world, failed_writes=1), pytest.raises(MilestoneNotOpen):  # refused by the write's own check
        issue_services.issue_update(
            membership=Membership.objects.get(tenant=world.tenant, user=world.member),
            issue=issue,
            expected_version=int(issue.version),
            title=issue.title,
            description="",
            priority=issue.priority,
            assignee=None,
            labels=(),
            milestone=old.milestone_id,
        )


def test_the_milestone_move_is_checked_on_the_version_loaded(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "Raced")
    meanwhile = load(world, int(issue.number))
    assert meanwhile is not None
    issues.issue_change(meanwhile, token="meanwhile", priority="high")  # saved since ``issue`` was read
    with unchanged(world, failed_writes=1), pytest.raises(ChangedSinceRead):
        issues.issue_update(
            issue,
            title=issue.title,
            description="",
            priority="medium",
            assignee=None,
            labels=(),
            milestone=v12.milestone_id,
        )


def test_a_stale_edit_takes_their_milestone_move_and_shows_a_conflict_by_name(world: World) -> None:
    v12, v13, v14 = _milestone(world, "v1.2"), _milestone(world, "v1.3"), _milestone(world, "v1.4")
    issue = new_issue(world, "Checkout")
    client = world.client_for(world.member)
    url = world.project_url(f"{issue.number}/edit/")
    loaded = form_of(client, url).values
    current = load(world, int(issue.number))
    assert current is not None
    _in(world, current, v12)  # somebody puts it in v1.2 meanwhile

    stale = client.post(url, {**loaded, "title": "Checkout on Safari"})  # I did not touch the milestone

    assert stale.status_code == 409
    merged = _FormValues()
    merged.feed(text(stale))
    assert merged.values["milestone"] == v12.milestone_id  # theirs, which I did not touch
    assert ("Milestone", "v1.2") in stale.context["taken"]
    assert client.post(url, merged.values).status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.title, after.milestone) == ("Checkout on Safari", v12.milestone_id)

    loaded = form_of(client, url).values
    fresh = load(world, int(issue.number))
    assert fresh is not None
    issues.issue_change(fresh, token="theirs", milestone=v13.milestone_id)
    both = client.post(url, {**loaded, "milestone": v14.milestone_id})
    assert both.status_code == 409
    assert both.context["conflicts"] == [("Milestone", "v1.3", "v1.4")]
    assert "· nobody · milestone v1.3</p>" in text(both)  # the current version, as saved
    kept = _FormValues()
    kept.feed(text(both))
    assert kept.values["milestone"] == v14.milestone_id  # my choice stays in the form
    assert load(world, int(issue.number)).milestone == v13.milestone_id  # type: ignore[union-attr]


def test_a_milestone_closed_after_the_list_was_cached_is_refused_on_the_form(world: World) -> None:
    """The form's choices come from the cached list; the save's own transaction checks the milestone and says so."""
    v12 = _milestone(world, "v1.2")
    issue = new_issue(world, "Raced with a close")
    client = world.client_for(world.member)
    values = form_of(client, world.project_url(f"{issue.number}/edit/")).values  # the list is cached now
    # A close starts meanwhile, through ddbmodels: the site's cached list still has v1.2 open, as during a race.
    milestones.milestone_set_state(v12, state="closing", expected_version=int(v12.version), token="a-close")
    with unchanged(world, failed_writes=1):  # refused by the edit's own transaction (its milestone check)
        response = client.post(world.project_url(f"{issue.number}/edit/"), {**values, "milestone": v12.milestone_id})
    assert response.status_code == 200
    assert response.context["form"].errors["milestone"] == ["Milestone v1.2 is being closed: choose an open one."]
