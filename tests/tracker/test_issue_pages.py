"""Issue pages end to end: create, read, list and page, filter, edit (with its lock), status, delete."""

from __future__ import annotations

import re

from ddbmodels import issues
from tests.tracker.conftest import World
from tests.tracker.helpers import (
    flash,
    hidden_value,
    load,
    new_issue,
    pager_link,
    references,
    text,
    unchanged,
    version_of,
)
from tracker.forms.issues import read_base
from tracker.models import Membership
from tracker.views.issues import STALE_MESSAGE

SCRIPT = '<script>alert("pwned")</script>'
ESCAPED_SCRIPT = "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;"


# ------------------------------------------------------------------------------- create and read


def test_a_member_creates_an_issue_and_the_detail_page_shows_what_was_entered(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(
        world.project_url("new/"),
        {
            "title": "  Login button is grey  ",
            "description": "Steps:\n1. open\n2. look",
            "priority": "urgent",
            "assignee": world.owner.username,
            "labels": "UX, bug, ux",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == world.project_url("1/")
    assert flash(response) == ["Created WEB-1."]
    page = text(client.get(response["Location"]))
    assert re.search(r'<span class="ref">WEB-1</span> Login button is grey</h1>', page)
    assert "<p>Steps:</p>\n<ol>\n<li>open</li>\n<li>look</li>\n</ol>" in page  # the description is markdown
    chips = r'<a class="label label-grey" href="[^"]*label%3Abug"[^>]*>bug</a> <a class="label label-grey" [^>]*>ux</a>'
    assert re.search(chips, page)
    assert f"<dd>{world.owner.username}</dd>" in page
    assert f"<dd>{world.member.username}</dd>" in page  # reporter
    stored = load(world, 1)
    assert (stored.title, stored.priority, stored.assignee, stored.labels, stored.reporter, stored.status) == (
        "Login button is grey",
        "urgent",
        world.owner.username,
        {"bug", "ux"},
        world.member.username,
        "open",
    )


def test_issue_numbers_count_up_per_project(world: World) -> None:
    client = world.client_for(world.member)
    locations = [
        client.post(world.project_url("new/"), {"title": f"#{i}", "priority": "low"})["Location"] for i in (1, 2, 3)
    ]
    assert locations == [world.project_url("1/"), world.project_url("2/"), world.project_url("3/")]


def test_script_in_title_and_description_is_rendered_escaped_never_raw(world: World) -> None:
    client = world.client_for(world.member)
    response = client.post(
        world.project_url("new/"),
        {"title": f"Title {SCRIPT}", "description": f"Body {SCRIPT}\nline 2", "priority": "low"},
    )
    assert response.status_code == 302
    pages = {
        "detail": client.get(world.project_url("1/")),
        "list": client.get(world.project_url()),
        "edit": client.get(world.project_url("1/edit/")),
    }
    for name, response in pages.items():
        page = text(response)
        assert response.status_code == 200, name
        assert "<script>" not in page, name
        assert ESCAPED_SCRIPT in page, name
    # the description is markdown: the tag is text, nh3 leaves the quotes of text as they are
    assert '<p>Body &lt;script&gt;alert("pwned")&lt;/script&gt;<br>\nline 2</p>' in text(pages["detail"])
    assert load(world, 1).description == f"Body {SCRIPT}\nline 2"  # stored as typed, escaped on output


def test_script_in_a_project_name_and_description_is_escaped(world: World) -> None:
    client = world.client_for(world.owner)
    response = client.post(world.url("projects/new/"), {"key": "XSS", "name": f"N {SCRIPT}", "description": SCRIPT})
    assert response.status_code == 302
    for url in (world.url(), world.url("p/XSS/")):
        page = text(client.get(url))
        assert "<script>" not in page
        assert ESCAPED_SCRIPT in page


def test_an_owner_creates_a_project_and_lands_on_its_empty_issue_list(world: World) -> None:
    client = world.client_for(world.owner)
    response = client.post(world.url("projects/new/"), {"key": "API", "name": "Public API", "description": "REST"})
    assert response.status_code == 302
    assert response["Location"] == world.url("p/API/")
    assert flash(response) == ["Project API created."]
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert "Public API" in text(page)
    assert "No open issues." in text(page)


# ------------------------------------------------------------------------------- list and pages


def _fill(world: World, count: int) -> None:
    for i in range(1, count + 1):
        new_issue(world, f"Issue number {i}")


def test_the_list_pages_newest_first_25_at_a_time_through_60_issues(world: World) -> None:
    _fill(world, 60)
    client = world.client_for(world.viewer)
    url = world.project_url()

    first = client.get(url)
    assert references(first) == list(range(60, 35, -1))
    assert pager_link(first, "prev") is None

    second = client.get(url + pager_link(first, "next"))
    assert references(second) == list(range(35, 10, -1))

    third = client.get(url + pager_link(second, "next"))
    assert references(third) == list(range(10, 0, -1))
    assert pager_link(third, "next") is None

    back_to_second = client.get(url + pager_link(third, "prev"))
    assert references(back_to_second) == references(second)
    back_to_first = client.get(url + pager_link(back_to_second, "prev"))
    assert references(back_to_first) == references(first)
    assert pager_link(back_to_first, "prev") is None
    assert pager_link(back_to_first, "next") is not None


def test_exactly_one_page_of_issues_has_no_pager_links(world: World) -> None:
    _fill(world, 25)
    response = world.client_for(world.member).get(world.project_url())
    assert references(response) == list(range(25, 0, -1))
    assert pager_link(response, "next") is None
    assert pager_link(response, "prev") is None


def test_pages_stay_full_when_issues_are_deleted(world: World) -> None:
    _fill(world, 30)
    for number in (30, 27, 20, 11, 6):
        issues.issue_tombstone(load(world, number), by="test")
    client = world.client_for(world.member)
    first = client.get(world.project_url())
    live = [n for n in range(30, 0, -1) if n not in (30, 27, 20, 11, 6)]
    assert references(first) == live[:25]
    assert pager_link(first, "next") is None  # 25 live issues: exactly one page


def test_the_status_filter_lists_only_matching_issues_and_pages_within_the_filter(world: World) -> None:
    _fill(world, 60)
    for number in range(2, 61, 2):
        issues.issue_change_status(load(world, number), to="closed")
    client = world.client_for(world.member)
    url = world.project_url()

    closed = client.get(url, {"status": "closed"})
    assert closed.status_code == 200
    assert references(closed) == list(range(60, 10, -2))
    next_link = pager_link(closed, "next")
    assert next_link.startswith("?q=is%3Aclosed&cursor=")  # what was asked; the list's default sort is its own
    older = client.get(url + next_link)
    assert references(older) == [10, 8, 6, 4, 2]
    assert pager_link(older, "next") is None
    newer = client.get(url + pager_link(older, "prev"))
    assert references(newer) == list(range(60, 10, -2))

    assert references(client.get(url, {"status": "open"})) == list(range(59, 9, -2))
    empty = client.get(url, {"status": "resolved"})
    assert references(empty) == []
    assert "No resolved issues." in text(empty)
    assert re.search(r'<a href="\?q=is%3Aresolved" class="active" aria-current="page">Resolved', text(empty))


# ------------------------------------------------------------------------------------------- edit


def test_the_edit_form_is_prefilled_with_the_current_issue(world: World) -> None:
    new_issue(world, "Prefilled", description="Body", priority="high", assignee=world.owner.username, labels=["b", "a"])
    page = world.client_for(world.member).get(world.project_url("1/edit/"))
    initial = dict(page.context["form"].initial)
    # What the editor loaded, signed: a stale save is merged against it (tracker.forms.issues.merge_edit).
    assert read_base(initial.pop("base")) == {
        "title": "Prefilled",
        "description": "Body",
        "priority": "high",
        "assignee": world.owner.username,
        "labels": ["a", "b"],
        "milestone": "",  # in none
    }
    assert initial == {
        "title": "Prefilled",
        "description": "Body",
        "priority": "high",
        "assignee": world.owner.username,
        "picked": ["a", "b"],  # the team's labels (every label an issue has is registered) as ticked checkboxes
        "labels": "",  # none left to type
        "milestone": "",
        "version": 1,
    }
    assert hidden_value(page, "version") == "1"


def test_an_edit_saves_every_field_and_bumps_the_version(world: World) -> None:
    new_issue(world, "Before", description="Old", labels=["old"], assignee=world.owner.username)
    client = world.client_for(world.member)
    emptied = {"description": "", "assignee": ""}  # fields sent empty are cleared
    changed = {"title": "After", "priority": "low", "labels": "new, shiny"}
    response = client.post(world.project_url("1/edit/"), {**changed, **emptied, "version": "1"})
    assert response.status_code == 302
    assert response["Location"] == world.project_url("1/")
    assert flash(response) == ["Saved WEB-1."]
    issue = load(world, 1)
    assert (issue.title, issue.description, issue.priority, issue.assignee, issue.labels) == (
        "After",
        None,
        "low",
        None,
        {"new", "shiny"},
    )
    assert int(issue.version) == 2
    assert "After" in text(client.get(world.project_url("1/")))


def test_the_second_of_two_concurrent_edits_gets_409_and_the_first_is_kept(world: World) -> None:
    new_issue(world, "Original", description="Original body")
    first, second = world.client_for(world.owner), world.client_for(world.member)
    first_form, second_form = first.get(world.project_url("1/edit/")), second.get(world.project_url("1/edit/"))
    opened = hidden_value(first_form, "version")
    assert hidden_value(second_form, "version") == opened == "1"

    saved = first.post(
        world.project_url("1/edit/"),
        {"title": "First editor wins", "description": "First body", "priority": "high", "version": opened},
    )
    assert saved.status_code == 302

    with unchanged(world):
        conflict = second.post(
            world.project_url("1/edit/"),
            {"title": "Second editor loses", "description": "Second body", "priority": "low", "version": opened},
        )
    assert conflict.status_code == 409
    page = text(conflict)
    assert STALE_MESSAGE in page
    assert "changed by someone else since you opened it" in page
    # What is stored now is shown; what the second editor typed is kept in the form.
    assert "Current version (saved by someone else)" in page
    assert "<strong>First editor wins</strong>" in page
    assert 'value="Second editor loses"' in page
    assert "Second body</textarea>" in page
    issue = load(world, 1)
    assert (issue.title, issue.description, issue.priority, int(issue.version)) == (
        "First editor wins",
        "First body",
        "high",
        2,
    )

    # The form now carries the current version: saving again on purpose goes through.
    assert hidden_value(conflict, "version") == "2"
    retry = second.post(
        world.project_url("1/edit/"),
        {"title": "Second editor, merged", "description": "Merged", "priority": "low", "version": "2"},
    )
    assert retry.status_code == 302
    assert load(world, 1).title == "Second editor, merged"


def test_an_edit_after_a_status_change_is_stale_too(world: World) -> None:
    new_issue(world, "Original")
    client = world.client_for(world.member)
    opened = hidden_value(client.get(world.project_url("1/edit/")), "version")
    issues.issue_change_status(load(world, 1), to="in_progress")
    response = client.post(world.project_url("1/edit/"), {"title": "Late edit", "priority": "low", "version": opened})
    assert response.status_code == 409
    assert load(world, 1).title == "Original"


# -------------------------------------------------------------------------------- status, delete


def test_a_member_moves_an_issue_through_the_workflow(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    for to, label in [("in_progress", "In progress"), ("resolved", "Resolved"), ("open", "Open"), ("closed", "Closed")]:
        response = client.post(world.project_url("1/status/"), {"to": to, "version": version_of(world, 1)})
        assert response.status_code == 302
        assert response["Location"] == world.project_url("1/")
        assert flash(response) == [f"WEB-1 is now {label}."]
        page = text(client.get(response["Location"]))  # shows (and so consumes) the message
        assert f"WEB-1 is now {label}." in page
        assert load(world, 1).status == to
    assert version_of(world, 1) == 5


def test_the_in_progress_status_is_shown_readably(world: World) -> None:
    issues.issue_change_status(new_issue(world), to="in_progress")
    client = world.client_for(world.member)
    for url in (world.project_url("1/"), world.project_url("?status=in_progress")):
        page = text(client.get(url))
        assert "inprogress" not in page
        assert re.search(r'status-in_progress">In progress<', page)


def test_an_owner_deletes_an_issue_which_then_is_404_everywhere(world: World) -> None:
    new_issue(world, "Keep me")
    new_issue(world, "Delete me", description="secret", labels=["x"])
    client = world.client_for(world.owner)
    response = client.post(world.project_url("2/delete/"), {"version": version_of(world, 2)})
    assert response.status_code == 302
    assert response["Location"] == world.project_url()
    assert flash(response) == ["Deleted WEB-2 with its comments, files and history; its number stays taken."]

    for suffix in ("2/", "2/edit/"):
        assert client.get(world.project_url(suffix)).status_code == 404
    for suffix, data in [("2/status/", {"to": "closed", "version": 2}), ("2/delete/", {"version": 2})]:
        assert client.post(world.project_url(suffix), data).status_code == 404
    assert references(client.get(world.project_url())) == [1]
    tombstone = load(world, 2)
    assert tombstone.is_tombstone
    assert (tombstone.title, tombstone.description, tombstone.labels, tombstone.deleted_by) == (
        "(deleted)",
        None,
        None,
        world.owner.username,
    )


def test_a_deleted_issues_number_is_not_reused_by_the_next_create(world: World) -> None:
    new_issue(world, "One")
    new_issue(world, "Two")
    client = world.client_for(world.owner)
    assert client.post(world.project_url("2/delete/"), {"version": version_of(world, 2)}).status_code == 302
    response = client.post(world.project_url("new/"), {"title": "Three", "priority": "low"})
    assert response["Location"] == world.project_url("3/")
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == [1, 2, 3]
    assert load(world, 3).title == "Three"


# ----------------------------------------------------------------------------- tenants and home


def test_switching_tenant_goes_to_its_projects_and_home_remembers_it(world: World, other_world: World) -> None:
    Membership.objects.create(user=world.member, tenant=other_world.tenant, role="viewer")
    client = world.client_for(world.member)
    assert client.get(world.url()).status_code == 200
    assert client.get("/")["Location"] == world.url()

    response = client.post("/switch/", {"tenant": other_world.slug})
    assert response.status_code == 302
    assert response["Location"] == other_world.url()
    assert client.get("/")["Location"] == other_world.url()
    page = text(client.get(other_world.url()))
    assert f'<option value="{other_world.slug}" selected>' in page
    assert f'<option value="{world.slug}" >' in page

    client.get(world.project_url())  # visiting a tenant's page makes it the current one too
    assert client.get("/")["Location"] == world.url()


def test_home_goes_to_the_first_tenant_by_name_when_none_was_used(world: World, other_world: World) -> None:
    Membership.objects.create(user=world.member, tenant=other_world.tenant, role="member")
    first = min((world, other_world), key=lambda w: w.tenant.name)
    response = world.client_for(world.member).get("/")
    assert response.status_code == 302
    assert response["Location"] == first.url()


def test_switch_only_accepts_post(world: World) -> None:
    client = world.client_for(world.member)
    assert client.get("/switch/", {"tenant": world.slug}).status_code == 405
    assert client.post("/switch/", {}).status_code == 404
