"""Bad input is answered (form error, 400, 403) and writes nothing to DynamoDB."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from ddbmodels import issues
from ddbmodels import issues as ddb_projects
from tests.tracker.conftest import World
from tests.tracker.helpers import (
    hidden_value,
    load,
    new_issue,
    pager_link,
    references,
    text,
    unchanged,
    version_of,
)

VALID = {"title": "A valid title", "description": "", "priority": "medium", "assignee": "", "labels": ""}


def _flip(token: str, index: int) -> str:
    """``token`` with the character at ``index`` replaced by a different letter or digit."""
    old = token[index]
    new = next(c for c in "AbC1xYz9" if c != old)
    return token[:index] + new + token[index + 1 :]


# ----------------------------------------------------------------------------------- issue form


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        pytest.param("title", "", "This field is required.", id="empty-title"),
        pytest.param("title", "   \t  ", "This field is required.", id="whitespace-title"),
        pytest.param("title", "x" * 201, "at most 200 characters", id="title-201-chars"),
        pytest.param("description", "d" * 10_001, "at most 10000 characters", id="description-10001-chars"),
        pytest.param("priority", "critical", "Select a valid choice. critical is not one", id="unknown-priority"),
        pytest.param("labels", ",".join(f"l{i}" for i in range(11)), "At most 10 labels.", id="eleven-labels"),
        pytest.param("labels", "bug, not ok!", "Label “not ok!”", id="label-with-space-and-bang"),
        pytest.param("labels", "x" * 31, "up to 30 letters", id="label-31-chars"),
        pytest.param("labels", "<b>bold</b>", "Label “&lt;b&gt;bold&lt;/b&gt;”", id="label-with-markup-escaped"),
    ],
)
def test_a_bad_field_on_the_new_issue_form_is_a_form_error_and_creates_nothing(
    world: World, field: str, value: str, error: str
) -> None:
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("new/"), {**VALID, field: value})
    assert response.status_code == 200
    assert response.context["form"].errors[field]
    assert error in text(response)
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == []


def test_the_limits_themselves_are_accepted(world: World) -> None:
    client = world.client_for(world.member)
    labels = ", ".join(f"label-{i}" for i in range(10))
    response = client.post(
        world.project_url("new/"), {**VALID, "title": "t" * 200, "description": "d" * 10_000, "labels": labels}
    )
    assert response.status_code == 302
    issue = load(world, 1)
    assert issue is not None
    assert len(issue.title) == 200
    assert len(issue.description) == 10_000
    assert len(issue.labels) == 10


def test_an_assignee_from_another_tenant_is_a_form_error(world: World, other_world: World) -> None:
    client = world.client_for(world.member)
    with unchanged(world, other_world):
        response = client.post(world.project_url("new/"), {**VALID, "assignee": other_world.member.username})
    assert response.status_code == 200
    assert "assignee" in response.context["form"].errors
    assert f"{other_world.member.username} is not one of the available choices" in text(response)
    # …and the other tenant's people are not even offered.
    assert f'value="{other_world.member.username}"' not in text(client.get(world.project_url("new/")))


def test_a_viewer_cannot_be_made_assignee(world: World) -> None:
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("new/"), {**VALID, "assignee": world.viewer.username})
    assert response.status_code == 200
    assert "assignee" in response.context["form"].errors


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("title", " ", id="blank-title"),
        pytest.param("priority", "whenever", id="unknown-priority"),
        pytest.param("labels", "a b", id="malformed-label"),
        pytest.param("version", "one", id="non-numeric-version"),
        pytest.param("version", "-1", id="negative-version"),
    ],
)
def test_a_bad_field_on_the_edit_form_is_a_form_error_and_changes_nothing(world: World, field: str, value: str) -> None:
    new_issue(world, "Original")
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/edit/"), {**VALID, "version": "1", field: value})
    assert response.status_code == 200
    assert response.context["form"].errors[field]


def test_an_edit_without_its_version_is_refused(world: World) -> None:
    new_issue(world, "Original")
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/edit/"), {**VALID, "title": "Changed"})
    assert response.status_code == 200
    assert "The form is missing its version; reload the page." in text(response)


# ---------------------------------------------------------------------------- status and delete


@pytest.mark.parametrize("to", ["done", "", "OPEN", "in progress"])
def test_an_unknown_status_is_a_400_and_changes_nothing(world: World, to: str) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/status/"), {"to": to, "version": version_of(world, 1)})
    assert response.status_code == 400
    assert "Unknown status." in text(response)


def test_a_status_change_without_a_version_is_a_400_and_changes_nothing(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/status/"), {"to": "closed"})
    assert response.status_code == 400


def test_a_disallowed_transition_is_explained_and_changes_nothing(world: World) -> None:
    issue = new_issue(world)
    issues.issue_change_status(issue, to="closed")
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/status/"), {"to": "resolved", "version": version_of(world, 1)})
    assert response.status_code == 409  # the error page says why, and links back to the issue
    assert "WEB-1 is Closed; it cannot move to Resolved." in text(response)
    assert f'href="{world.project_url("1/")}"' in text(response)
    assert load(world, 1).status == "closed"


def test_the_detail_page_offers_only_allowed_transitions(world: World) -> None:
    issue = new_issue(world)
    issues.issue_change_status(issue, to="closed")
    page = text(world.client_for(world.member).get(world.project_url("1/")))
    quick_status = re.search(r'<select id="quick-status".*?</select>', page, re.S)
    assert quick_status is not None
    assert re.findall(r'<option value="(\w+)"', quick_status.group()) == ["open"]


def test_a_status_change_on_a_stale_version_changes_nothing(world: World) -> None:
    new_issue(world)
    stale = version_of(world, 1)
    issues.issue_update(
        load(world, 1), title="Edited meanwhile", description="", priority="low", assignee=None, labels=()
    )
    client = world.client_for(world.member)
    with unchanged(world):
        response = client.post(world.project_url("1/status/"), {"to": "closed", "version": stale})
    assert response.status_code == 409  # the error page says so, and what it is now
    assert "This issue changed since you opened it; nothing was changed. Look again." in text(response)
    assert "<dt>Now</dt><dd>Open</dd><dt>You asked for</dt><dd>Closed</dd>" in text(response)
    assert load(world, 1).status == "open"


def test_a_delete_without_a_version_is_a_400_and_deletes_nothing(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.owner)
    with unchanged(world):
        response = client.post(world.project_url("1/delete/"), {})
    assert response.status_code == 400
    assert not load(world, 1).is_tombstone


def test_a_delete_on_a_stale_version_deletes_nothing(world: World) -> None:
    new_issue(world)
    stale = version_of(world, 1)
    issues.issue_change_status(load(world, 1), to="in_progress")
    client = world.client_for(world.owner)
    with unchanged(world):
        response = client.post(world.project_url("1/delete/"), {"version": stale})
    assert response.status_code == 409  # the error page says so, and links back to the issue
    assert "This issue changed since you opened it; it was not deleted." in text(response)
    assert f'href="{world.project_url("1/")}"' in text(response)


# ------------------------------------------------------------------------------- list and cursors


def _next_cursor(client: Client, url: str) -> str:
    link = pager_link(client.get(url), "next")
    assert link is not None, "expected a next page"
    return parse_qs(urlsplit(link).query)["cursor"][0]


def _fill(world: World, count: int, **fields: object) -> None:
    for i in range(count):
        new_issue(world, f"Issue {i + 1}", **fields)


def test_a_tampered_cursor_is_a_400(world: World) -> None:
    _fill(world, 27)
    client = world.client_for(world.member)
    cursor = _next_cursor(client, world.project_url())
    assert client.get(world.project_url(), {"cursor": cursor}).status_code == 200  # the untouched one works
    for index in (len(cursor) // 3, len(cursor) - 2):  # in the payload, in the signature
        with unchanged(world):
            response = client.get(world.project_url(), {"cursor": _flip(cursor, index)})
        assert response.status_code == 400
        assert "This page link is invalid." in text(response)


@pytest.mark.parametrize("cursor", ["garbage", "a:b:c", ":::", "x" * 2000])
def test_a_garbage_cursor_is_a_400(world: World, cursor: str) -> None:
    response = world.client_for(world.member).get(world.project_url(), {"cursor": cursor})
    assert response.status_code == 400
    assert "This page link is invalid." in text(response)


def test_a_cursor_from_another_tenants_project_is_a_400(world: World, other_world: World) -> None:
    _fill(other_world, 27)
    _fill(world, 27)
    foreign = _next_cursor(other_world.client_for(other_world.member), other_world.project_url())
    response = world.client_for(world.member).get(world.project_url(), {"cursor": foreign})
    assert response.status_code == 400
    assert "This page link belongs to another list." in text(response)


def test_a_cursor_from_another_project_of_the_same_tenant_is_a_400(world: World) -> None:
    ddb_projects.project_create(tenant=world.slug, key="API", name="API", created_by=world.owner.username)
    for i in range(27):
        issues.issue_create(tenant=world.slug, project_key="API", title=f"api {i}", reporter="x")
    _fill(world, 27)
    client = world.client_for(world.member)
    foreign = _next_cursor(client, f"/t/{world.slug}/p/API/")
    response = client.get(world.project_url(), {"cursor": foreign})
    assert response.status_code == 400
    assert "This page link belongs to another list." in text(response)


def test_a_cursor_from_another_status_filter_is_a_400(world: World) -> None:
    _fill(world, 27)
    client = world.client_for(world.member)
    open_cursor = _next_cursor(client, world.project_url() + "?status=open")
    assert client.get(world.project_url(), {"status": "open", "cursor": open_cursor}).status_code == 200
    for other in ("in_progress", "closed"):
        response = client.get(world.project_url(), {"status": other, "cursor": open_cursor})
        assert response.status_code == 400
        assert "This page link belongs to another list." in text(response)


@pytest.mark.parametrize("status", ["bogus", "in progress", "<script>"])
def test_an_unknown_status_filter_is_a_form_error_saying_which_ones_exist(world: World, status: str) -> None:
    new_issue(world)
    response = world.client_for(world.member).get(world.project_url(), {"status": status})
    assert response.status_code == 200  # the list page with its form error, the list of the rest below
    assert "is not a status this list knows" in text(response)
    assert "is:in_progress" in text(response)
    assert "<script>" not in text(response)


def test_an_empty_status_filter_lists_the_open_issues(world: World) -> None:
    new_issue(world)
    response = world.client_for(world.member).get(world.project_url(), {"status": "", "cursor": ""})
    assert response.status_code == 200
    assert references(response) == [1]


# ------------------------------------------------------------------------------------------ CSRF


def _csrf_client(world: World) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    return client


def test_a_post_without_csrf_token_is_a_403_and_creates_nothing(world: World) -> None:
    client = _csrf_client(world)
    with unchanged(world):
        response = client.post(world.project_url("new/"), VALID)
    assert response.status_code == 403
    # The same post with the form's token goes through, so it was the token that was missing.
    token = hidden_value(client.get(world.project_url("new/")), "csrfmiddlewaretoken")
    assert client.post(world.project_url("new/"), {**VALID, "csrfmiddlewaretoken": token}).status_code == 302
    assert issues.issue_numbers(tenant=world.slug, project_key=world.project_key) == [1]


@pytest.mark.parametrize(
    ("suffix", "data"),
    [
        pytest.param("1/edit/", {**VALID, "title": "Hijacked", "version": "1"}, id="edit"),
        pytest.param("1/status/", {"to": "closed", "version": "1"}, id="status"),
        pytest.param("1/delete/", {"version": "1"}, id="delete"),
    ],
)
def test_issue_writes_without_csrf_token_are_403_and_change_nothing(world: World, suffix: str, data: dict) -> None:
    new_issue(world)
    client = _csrf_client(world)
    with unchanged(world):
        response = client.post(world.project_url(suffix), data)
    assert response.status_code == 403


def test_a_project_create_without_csrf_token_is_a_403_and_creates_nothing(world: World) -> None:
    client = _csrf_client(world)
    with unchanged(world):
        response = client.post(world.url("projects/new/"), {"key": "API", "name": "API"})
    assert response.status_code == 403
    assert ddb_projects.project_get(tenant=world.slug, key="API") is None


# -------------------------------------------------------------------------------------- projects


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("W", id="one-char"),
        pytest.param("1AB", id="starts-with-digit"),
        pytest.param("ABCDEFGHIJK", id="eleven-chars"),
        pytest.param("WE B", id="space"),
        pytest.param("WE-B", id="dash"),
        pytest.param("ÄPI", id="non-ascii"),
        pytest.param("", id="empty"),
    ],
)
def test_an_invalid_project_key_is_a_form_error_and_creates_nothing(world: World, key: str) -> None:
    client = world.client_for(world.owner)
    with unchanged(world):
        response = client.post(world.url("projects/new/"), {"key": key, "name": "Something"})
    assert response.status_code == 200
    assert response.context["form"].errors["key"]
    assert ddb_projects.project_keys(tenant=world.slug) == ["WEB"]


def test_a_project_without_a_name_is_a_form_error(world: World) -> None:
    client = world.client_for(world.owner)
    with unchanged(world):
        response = client.post(world.url("projects/new/"), {"key": "API", "name": "  "})
    assert response.status_code == 200
    assert response.context["form"].errors["name"]


def test_a_duplicate_project_key_is_a_form_error_and_keeps_the_existing_project(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.owner)
    with unchanged(world, failed_writes=1):  # the refused conditional PutItem is how it is found out
        response = client.post(world.url("projects/new/"), {"key": "WEB", "name": "Impostor"})
    assert response.status_code == 200
    assert f"{world.tenant.name} already has a project with this key." in text(response)
    assert ddb_projects.project_get(tenant=world.slug, key="WEB").name == "Website"


def test_the_same_project_key_in_another_tenant_is_fine(world: World, other_world: World) -> None:
    # other_world already has WEB; world may create API, and other_world may create API too.
    for w in (world, other_world):
        response = w.client_for(w.owner).post(w.url("projects/new/"), {"key": "API", "name": f"API of {w.slug}"})
        assert response.status_code == 302
    assert ddb_projects.project_get(tenant=world.slug, key="API").name == f"API of {world.slug}"
    assert ddb_projects.project_get(tenant=other_world.slug, key="API").name == f"API of {other_world.slug}"


# ------------------------------------------------------------------------------- issue numbers


@pytest.mark.parametrize("suffix", ["", "edit/"])
@pytest.mark.parametrize("number", ["0", "99999", "9" * 38])
def test_an_issue_number_that_does_not_exist_is_a_404(world: World, number: str, suffix: str) -> None:
    new_issue(world)
    response = world.client_for(world.member).get(world.project_url(f"{number}/{suffix}"))
    assert response.status_code == 404


@pytest.mark.parametrize("suffix", ["", "edit/"])
def test_an_issue_number_too_long_for_dynamodb_is_a_404_not_a_500(world: World, suffix: str) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(world.member)
    response = client.get(world.project_url(f"{'9' * 39}/{suffix}"))
    assert response.status_code == 404


def test_a_lowercase_project_key_is_upper_cased(world: World) -> None:
    response = world.client_for(world.owner).post(world.url("projects/new/"), {"key": "api", "name": "API"})
    assert response.status_code == 302
    assert response["Location"] == world.url("p/API/")
