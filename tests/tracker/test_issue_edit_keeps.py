"""An edit changes only what the person changed: every field they did not touch stays as it is.

The form is posted the way a browser posts it — every field as the page rendered it, textareas with
CRLF line breaks — so a field the form cannot show as it is stored (an assignee who is a viewer now,
or not in the team at all; a priority or label the form would not offer) would come back different.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from pynamodb.connection.base import Connection

from ddbmodels import issues
from ddbmodels.core.errors import InvalidInput
from ddbmodels.issues import IssueItem, collection_key
from tests.tracker.conftest import World
from tests.tracker.helpers import flash, load, new_issue, text, unchanged
from tracker.models import Membership, Role
from tracker.services import issues as issue_services

DESCRIPTION = "Steps:\n\n1. open the page\n2. **save**\n"  # as imports and seeds store it: LF, a final newline


class _FormValues(HTMLParser):
    """What a browser would submit for the page's POST form: inputs, ticked boxes, selected options, textareas."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, Any] = {}  # a name's ticked checkboxes are a list, as a browser sends them all
        self.options: dict[str, list[tuple[str, str, bool]]] = {}
        self._in_form = False
        self._select: str | None = None
        self._option: tuple[str, bool] | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method") == "post" and "stack" in a.get("class", ""):
            self._in_form = True
        if not self._in_form:
            return
        if tag == "input" and a.get("type") == "checkbox" and a.get("name"):
            if "checked" in a:  # an unticked box sends nothing
                self.values.setdefault(a["name"], []).append(a.get("value", "on"))
        elif tag == "input" and a.get("name") and a.get("type") != "submit":
            self.values[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
            self.options[a["name"]] = []
        elif tag == "option" and self._select:
            self._option = (a.get("value", ""), "selected" in a)
            if "selected" in a:
                self.values[self._select] = a.get("value", "")
        elif tag == "textarea":
            self._textarea = a["name"]
            self.values[a["name"]] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data
        elif self._select and self._option:
            value, selected = self._option
            self.options[self._select].append((value, data.strip(), selected))
            self._option = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._textarea:
            # The browser drops the newline right after <textarea> and sends line breaks as CRLF.
            value = self.values[self._textarea]
            value = value[1:] if value.startswith("\n") else value
            self.values[self._textarea] = value.replace("\r\n", "\n").replace("\n", "\r\n")
            self._textarea = None


def form_of(client: Client, url: str) -> _FormValues:
    page = client.get(url)
    assert page.status_code == 200
    parser = _FormValues()
    parser.feed(text(page))
    return parser


def edit_as_a_browser(client: Client, world: World, number: int, **changes: str) -> Any:
    """Open the edit page, change only ``changes``, submit everything else as the page showed it."""
    url = world.project_url(f"{number}/edit/")
    values = {**form_of(client, url).values, **changes}
    return client.post(url, values)


def history(client: Client, world: World, number: int) -> list[str]:
    page = text(client.get(world.project_url(f"{number}/")))
    section = page[page.index('<section class="activity" id="history">') :]
    diff = r'(?:<details class="word-diff">.*?</details>)?'  # what a title or description edit changed
    items = re.findall(rf"<li><time[^>]*>[^<]*</time> · <strong>([^<]+)</strong> ([^<]+){diff}</li>", section)
    return [unescape(f"{actor} {what}") for actor, what in items]


def demote(world: World, user: Any, role: str = Role.VIEWER) -> None:
    Membership.objects.filter(tenant=world.tenant, user=user).update(role=role)


def test_a_title_edit_keeps_an_assignee_who_is_a_viewer_now(world: World) -> None:
    member = world.member.username
    issue = new_issue(world, "Checkout button misaligned", assignee=member, labels=["ui"], description=DESCRIPTION)
    demote(world, world.member)
    owner = world.client_for(world.owner)

    response = edit_as_a_browser(owner, world, int(issue.number), title="Checkout button misaligned on Safari")

    assert response.status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert after.title == "Checkout button misaligned on Safari"
    assert after.assignee == member
    assert after.description == DESCRIPTION
    assert after.labels == {"ui"}
    lines = history(owner, world, int(issue.number))
    assert lines[0] == (
        f"{world.owner.username} changed the title from “Checkout button misaligned” to "
        "“Checkout button misaligned on Safari”"
    )
    assert not any("unassigned" in line or "description" in line for line in lines)


def test_the_form_shows_an_assignee_who_can_no_longer_be_picked_with_a_note(world: World) -> None:
    issue = new_issue(world, "Flaky login", assignee=world.member.username)
    demote(world, world.member)
    form = form_of(world.client_for(world.owner), world.project_url(f"{int(issue.number)}/edit/"))
    member = world.member.username
    assert (member, f"{member} (viewer now — can't be newly assigned)", True) in form.options["assignee"]
    assert [value for value, _, _ in form.options["assignee"]].count(member) == 1
    page = text(world.client_for(world.owner).get(world.project_url(f"{int(issue.number)}/edit/")))
    assert f"{member} is a viewer now: they stay assigned until someone changes it" in page


def test_an_imported_assignee_priority_and_labels_the_form_would_not_offer_survive_an_edit(world: World) -> None:
    """As an import, an older version or a staff edit may have stored them: a person outside the team,
    a priority no longer offered, labels the form would not let you type, eleven of them."""
    labels = {"Needs Triage", "good first issue", *(f"area-{n}" for n in range(9))}
    stored = IssueItem(
        pk=collection_key(world.slug, "WEB"),
        number=7,
        title="Imported from GitHub  ",
        description="Line one\nline two\n\n",
        status="open",
        priority="critical",
        assignee="octocat",
        reporter="octocat",
        labels=labels,
    )
    issues.issues_put_many([stored])
    client = world.client_for(world.member)
    form = form_of(client, world.project_url("7/edit/"))
    assert ("octocat", "octocat (not in this team — can't be newly assigned)", True) in form.options["assignee"]
    assert ("critical", "critical (no longer offered)", True) in form.options["priority"]

    response = edit_as_a_browser(client, world, 7, title="Imported from GitHub, triaged")

    assert response.status_code == 302, response.context["form"].errors if response.context else response
    after = load(world, 7)
    assert after is not None
    assert (after.title, after.assignee, after.priority) == ("Imported from GitHub, triaged", "octocat", "critical")
    assert after.labels == labels
    assert after.description == "Line one\nline two\n\n"
    assert history(client, world, 7)[0] == (
        f"{world.member.username} changed the title from “Imported from GitHub  ” to “Imported from GitHub, triaged”"
    )


def test_a_new_label_is_still_checked_and_limited_but_kept_ones_are_not(world: World) -> None:
    stored = IssueItem(
        pk=collection_key(world.slug, "WEB"),
        number=8,
        title="Ten labels already",
        reporter="x",
        labels={"Needs Triage", *(f"area-{n}" for n in range(9))},
    )
    issues.issues_put_many([stored])
    client = world.client_for(world.member)
    values = form_of(client, world.project_url("8/edit/")).values
    refused = client.post(world.project_url("8/edit/"), {**values, "labels": values["labels"] + ", one-more"})
    assert refused.status_code == 200
    assert "At most 10 labels." in text(refused)
    # Below, the boxes of the team's labels are unticked and the labels typed instead, as a person may.
    bad = client.post(
        world.project_url("8/edit/"), {**values, "picked": [], "labels": "Needs Triage, no spaces please"}
    )
    assert "Label “no spaces please”" in text(bad)
    removed = client.post(
        world.project_url("8/edit/"), {**values, "picked": [], "labels": "Needs Triage, area-0, New-One"}
    )
    assert removed.status_code == 302
    after = load(world, 8)
    assert after is not None
    assert after.labels == {"Needs Triage", "area-0", "new-one"}


def test_the_person_can_still_unassign_deliberately(world: World) -> None:
    member = world.member.username
    issue = new_issue(world, "Old report", assignee=member)
    demote(world, world.member)
    owner = world.client_for(world.owner)
    assert edit_as_a_browser(owner, world, int(issue.number), assignee="").status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert after.assignee is None
    assert history(owner, world, int(issue.number))[0] == f"{world.owner.username} unassigned {member}"


def test_a_viewer_cannot_be_newly_assigned(world: World) -> None:
    issue = new_issue(world, "Nobody's yet")
    client = world.client_for(world.member)
    with unchanged(world):
        response = edit_as_a_browser(client, world, int(issue.number), assignee=world.viewer.username)
    assert response.status_code == 200
    assert "Select a valid choice" in text(response)


def test_saving_without_a_change_writes_nothing(world: World) -> None:
    issue = new_issue(world, "Untouched", assignee=world.member.username, description=DESCRIPTION, labels=["ui"])
    demote(world, world.member)
    client = world.client_for(world.owner)
    with unchanged(world):
        response = edit_as_a_browser(client, world, int(issue.number))
    assert response.status_code == 302
    assert flash(response) == [f"Nothing to save: {issue.reference} is as it was."]


def test_a_stale_edit_keeps_the_viewer_assignee_and_takes_their_change(world: World) -> None:
    member = world.member.username
    issue = new_issue(world, "Slow search", assignee=member, labels=["perf"])
    demote(world, world.member)
    owner = world.client_for(world.owner)
    url = world.project_url(f"{int(issue.number)}/edit/")
    loaded = form_of(owner, url).values
    current = load(world, int(issue.number))
    assert current is not None
    issues.issue_update(
        current, title="Slow search on big teams", description="", priority="medium", assignee=member, labels=["perf"]
    )

    stale = owner.post(url, {**loaded, "priority": "high"})

    assert stale.status_code == 409
    merged = _FormValues()
    merged.feed(text(stale))
    assert merged.values["title"] == "Slow search on big teams"  # theirs, which I did not touch
    assert merged.values["priority"] == "high"  # mine
    assert merged.values["assignee"] == member  # nobody changed it
    assert not stale.context["conflicts"]
    assert owner.post(url, merged.values).status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.title, after.priority, after.assignee) == ("Slow search on big teams", "high", member)


def test_the_update_names_only_the_fields_that_changed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    issue = new_issue(world, "Small", description=DESCRIPTION, assignee=world.member.username, labels=["ui"])
    sent: list[dict[str, str]] = []
    real = Connection._make_api_call

    def keep(self: Connection, operation: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        if operation == "UpdateItem":
            sent.append(kwargs.get("ExpressionAttributeNames", {}))
        if operation == "TransactWriteItems":  # the issue's update beside entries of its labels or words
            sent.extend(
                part["Update"].get("ExpressionAttributeNames", {})
                for part in kwargs["TransactItems"]
                if "Update" in part
            )
        return real(self, operation, kwargs)

    monkeypatch.setattr(Connection, "_make_api_call", keep)
    issue_services.issue_update(
        membership=Membership.objects.get(tenant=world.tenant, user=world.owner),
        issue=issue,
        expected_version=int(issue.version),
        title="Smaller",
        description=DESCRIPTION,
        priority=issue.priority,
        assignee=world.member.username,
        labels=["ui"],
    )
    assert len(sent) == 1
    assert {"t", "ua", "v"} <= set(sent[0].values())
    assert not {"ds", "as", "lb", "pr"} & set(sent[0].values())


def test_the_service_refuses_a_viewer_as_a_new_assignee(world: World) -> None:
    issue = new_issue(world, "Not for viewers")
    with unchanged(world), pytest.raises(InvalidInput):
        issue_services.issue_update(
            membership=Membership.objects.get(tenant=world.tenant, user=world.owner),
            issue=issue,
            expected_version=int(issue.version),
            title=issue.title,
            description="",
            priority=issue.priority,
            assignee=world.viewer.username,
            labels=(),
        )


def test_saving_a_comment_as_it_was_writes_nothing_and_does_not_mark_it_edited(world: World) -> None:
    from ddbmodels import comments

    issue = new_issue(world, "Commented")
    body = "Seen on Safari:\n\n- step one\n- step two"
    comment = comments.comment_add(
        tenant=world.slug, project_key="WEB", number=int(issue.number), author=world.member.username, body=body
    ).comment
    client = world.client_for(world.member)
    url = world.project_url(f"{int(issue.number)}/comments/{comments.comment_id(comment.key)}/edit/")
    page = client.get(url)
    assert page.status_code == 200, url
    values = _FormValues()
    values.feed(text(page))
    with unchanged(world):
        response = client.post(url, values.values)  # CRLF line breaks, as a browser sends them
    assert response.status_code == 302
    assert flash(response) == ["Nothing to save: the comment is as it was."]
    (stored,) = comments.CommentItem.query(comment.stream, consistent_read=True)
    assert (stored.body, int(stored.version), stored.updated_at) == (body, 1, comment.updated_at)


def test_a_stale_edit_page_keeps_the_team_labels_as_ticked_boxes(world: World) -> None:
    """The 409 form is the edit form again: the team's labels as checkboxes, the merged ones ticked, others typed."""
    issue = new_issue(world, "Slow search", labels=["perf", "ui"])
    client = world.client_for(world.member)
    url = world.project_url(f"{int(issue.number)}/edit/")
    loaded = form_of(client, url).values
    assert sorted(loaded["picked"]) == ["perf", "ui"]
    current = load(world, int(issue.number))
    assert current is not None
    issues.issue_update(
        current,
        title="Slow search on big teams",
        description="",
        priority="medium",
        assignee=None,
        labels=["perf", "ui"],
    )

    stale = client.post(url, {**loaded, "picked": ["perf"], "labels": "Regression"})  # ui unticked, one typed

    assert stale.status_code == 409
    merged = _FormValues()
    merged.feed(text(stale))
    assert merged.values["picked"] == ["perf"]  # my boxes as I left them
    assert merged.values["labels"] == "regression"  # what I typed, not a box of the team's
    assert client.post(url, merged.values).status_code == 302
    after = load(world, int(issue.number))
    assert after is not None
    assert (after.title, after.labels) == ("Slow search on big teams", {"perf", "regression"})
