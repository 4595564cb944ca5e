"""The issue page's milestone: shown with a link to its issues, set by members from a side form (once per form,
on the version the page showed), said by the history."""

from __future__ import annotations

import re

from ddbmodels import milestones
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, hidden_value, load, new_issue, text
from tests.tracker.test_milestones_pages import _milestone


def test_the_issue_page_shows_its_milestone_and_a_member_sets_it_once(world: World) -> None:
    v12 = _milestone(world, "v1.2", due=None)
    issue = new_issue(world, "Login page")
    client = world.client_for(world.member)
    url = world.project_url(f"{issue.number}/")
    page = client.get(url)
    assert re.search(r"<dt>Milestone</dt><dd data-milestone>—</dd>", text(page))
    form = {
        "n": str(issue.number),
        "v": hidden_value(page, "v"),
        "milestone": v12.milestone_id,
        "idempotency_key": re.findall(r'name="idempotency_key" value="([^"]+)"', text(page))[-1],
    }
    response = client.post(world.project_url("milestones/issue/"), form)
    assert response.status_code == 302
    assert flash(response)[-1] == f"Saved {issue.reference}'s milestone."
    saved = load(world, int(issue.number))
    assert saved is not None
    assert saved.milestone == v12.milestone_id
    again = client.post(world.project_url("milestones/issue/"), form)  # the same form sent twice
    assert again.status_code == 302
    assert load(world, int(issue.number)).version == saved.version  # type: ignore[union-attr]
    shown = text(client.get(url))
    assert 'title="Issues of WEB in v1.2">v1.2</a>' in shown
    assert "put it in milestone v1.2" in shown  # the history says it
    stale = client.post(world.project_url("milestones/issue/"), {**form, "milestone": "", "idempotency_key": ""})
    assert stale.status_code == 409  # the page showed an older version: nothing changes
    assert load(world, int(issue.number)).milestone == v12.milestone_id  # type: ignore[union-attr]
    viewer = world.client_for(world.viewer)
    assert "quick-milestone" not in text(viewer.get(url))
    assert viewer.post(world.project_url("milestones/issue/"), form).status_code == 403


def test_a_new_issue_is_created_in_the_milestone_chosen_on_its_form(world: World) -> None:
    v12 = _milestone(world, "v1.2")
    closed = _milestone(world, "v0.9")
    milestones.milestone_set_state(closed, state="closed", expected_version=1)
    client = world.client_for(world.member)
    form = client.get(world.project_url("new/"))
    page = text(form)
    assert f'<option value="{v12.milestone_id}">v1.2</option>' in page
    assert "v0.9" not in page  # closed: not offered
    data = {"title": "Sign-in", "priority": "medium", "idempotency_key": hidden_value(form, "idempotency_key")}
    response = client.post(world.project_url("new/"), {**data, "milestone": v12.milestone_id})
    assert response.status_code == 302
    created = load(world, 1)
    assert created is not None
    assert created.milestone == v12.milestone_id
    listed = client.get(world.project_url(), {"q": "milestone:v1.2"})
    assert "Sign-in" in text(listed)
    refused = client.post(world.project_url("new/"), {**data, "idempotency_key": "", "milestone": closed.milestone_id})
    assert refused.status_code == 200  # not a choice the form offers: a form error, nothing created
    assert load(world, 2) is None
    edit_page = text(client.get(world.project_url("1/edit/")))
    chosen = f'<option value="{v12.milestone_id}" selected>v1.2</option>'
    assert chosen in edit_page  # the edit form shows it, to keep or change (tests/tracker/test_issue_edit_milestone.py)
