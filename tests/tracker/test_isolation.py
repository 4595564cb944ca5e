"""Tenants never see each other, and roles limit what members of one tenant may do."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from ddbmodels import issues as ddb_projects
from tests.tracker.conftest import World
from tests.tracker.helpers import NOT_FOUND_TEXT, load, new_issue, text, unchanged, version_of, without_csrf

# (method, suffix of the tenant URL, POST data) for every page of a tenant.
TENANT_PAGES = [
    pytest.param("get", "", None, id="project-list"),
    pytest.param("get", "projects/new/", None, id="project-create-form"),
    pytest.param("post", "projects/new/", {"key": "STOLEN", "name": "x"}, id="project-create"),
    pytest.param("get", "p/WEB/", None, id="issue-list"),
    pytest.param("get", "p/WEB/new/", None, id="issue-create-form"),
    pytest.param("post", "p/WEB/new/", {"title": "Injected", "priority": "low"}, id="issue-create"),
    pytest.param("get", "p/WEB/1/", None, id="issue-detail"),
    pytest.param("get", "p/WEB/1/edit/", None, id="issue-edit-form"),
    pytest.param("post", "p/WEB/1/edit/", {"title": "Hijacked", "priority": "low", "version": "1"}, id="issue-edit"),
    pytest.param("post", "p/WEB/1/status/", {"to": "closed", "version": "1"}, id="issue-status"),
    pytest.param("post", "p/WEB/1/delete/", {"version": "1"}, id="issue-delete"),
]


def _request(client: Client, method: str, url: str, data: dict | None):
    return client.post(url, data) if method == "post" else client.get(url)


@pytest.mark.parametrize(("method", "suffix", "data"), TENANT_PAGES)
def test_a_user_of_another_tenant_gets_the_same_404_as_for_a_missing_tenant(
    world: World, other_world: World, method: str, suffix: str, data: dict | None
) -> None:
    new_issue(world, "Secret of A")
    intruder = other_world.client_for(other_world.owner)  # the most powerful role elsewhere
    with unchanged(world, other_world):
        theirs = _request(intruder, method, world.url(suffix), data)
        missing = _request(intruder, method, f"/t/no-such-tenant/{suffix}", data)
    assert theirs.status_code == 404
    assert NOT_FOUND_TEXT in text(theirs)
    assert "Secret of A" not in text(theirs)
    assert world.slug not in text(theirs)
    # Byte for byte the same page as for a tenant that does not exist (CSRF tokens aside).
    assert missing.status_code == 404
    assert without_csrf(text(theirs)) == without_csrf(text(missing))


@pytest.mark.parametrize(("method", "suffix", "data"), [p for p in TENANT_PAGES if "/1/" in p.values[1]])
def test_another_tenants_issue_is_as_missing_as_a_missing_issue_in_ones_own_tenant(
    world: World, other_world: World, method: str, suffix: str, data: dict | None
) -> None:
    """Through one's own tenant URL, the other tenant's issue WEB-1 does not exist either."""
    new_issue(other_world, "Secret of B")
    client = world.client_for(world.owner)
    with unchanged(world, other_world):
        response = _request(client, method, world.url(suffix), data)
    assert response.status_code == 404
    assert "Secret of B" not in text(response)


def test_another_tenants_project_key_is_a_404_in_ones_own_tenant(world: World, other_world: World) -> None:
    ddb_projects.project_create(tenant=other_world.slug, key="SECRET", name="Secret", created_by="x")
    client = world.client_for(world.owner)
    for suffix in ("p/SECRET/", "p/SECRET/new/", "p/SECRET/1/"):
        response = client.get(world.url(suffix))
        assert response.status_code == 404, suffix
    assert "SECRET" not in text(client.get(world.url()))


def test_a_missing_project_and_a_missing_issue_are_404(world: World) -> None:
    client = world.client_for(world.member)
    for suffix in ("p/NOPE/", "p/NOPE/new/", "p/WEB/1/", "p/WEB/1/edit/"):
        response = client.get(world.url(suffix))
        assert response.status_code == 404, suffix
        assert NOT_FOUND_TEXT in text(response)


def test_switching_to_another_tenant_is_a_404(world: World, other_world: World) -> None:
    client = world.client_for(world.member)
    client.get(world.url())
    response = client.post("/switch/", {"tenant": other_world.slug})
    assert response.status_code == 404
    assert client.session["tenant"] == world.slug


def test_a_user_without_any_membership_gets_404_for_the_tenant(world: World) -> None:
    new_issue(world)
    client = Client()
    client.force_login(User.objects.create_user("loner", password="pw-for-tests"))
    with unchanged(world):
        for suffix in ("", "p/WEB/", "p/WEB/1/", "p/WEB/1/edit/"):
            assert client.get(world.url(suffix)).status_code == 404, suffix
        assert client.post(world.project_url("1/status/"), {"to": "closed", "version": "1"}).status_code == 404
    home = client.get("/")
    assert home.status_code == 200
    assert "You are not in any team yet." in text(home)


@pytest.mark.parametrize(("method", "suffix", "data"), TENANT_PAGES)
def test_anonymous_is_sent_to_the_login_page(world: World, method: str, suffix: str, data: dict | None) -> None:
    new_issue(world)
    with unchanged(world):
        response = _request(Client(), method, world.url(suffix), data)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={world.url(suffix)}"


@pytest.mark.parametrize("path", ["/", "/switch/"])
def test_anonymous_home_and_switch_go_to_the_login_page(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


# ------------------------------------------------------------------------------------------ roles

VIEWER_FORBIDDEN = [
    pytest.param("get", "p/WEB/new/", None, id="new-issue-form"),
    pytest.param("post", "p/WEB/new/", {"title": "By a viewer", "priority": "low"}, id="new-issue"),
    pytest.param("get", "p/WEB/1/edit/", None, id="edit-form"),
    pytest.param("post", "p/WEB/1/edit/", {"title": "By a viewer", "priority": "low", "version": "1"}, id="edit"),
    pytest.param("post", "p/WEB/1/status/", {"to": "closed", "version": "1"}, id="status"),
    pytest.param("post", "p/WEB/1/delete/", {"version": "1"}, id="delete"),
    pytest.param("get", "projects/new/", None, id="project-create-form"),
    pytest.param("post", "projects/new/", {"key": "VIEW", "name": "By a viewer"}, id="project-create"),
]


@pytest.mark.parametrize(("method", "suffix", "data"), VIEWER_FORBIDDEN)
def test_a_viewer_gets_403_for_every_write(world: World, method: str, suffix: str, data: dict | None) -> None:
    new_issue(world, "Untouched")
    assert version_of(world, 1) == 1
    client = world.client_for(world.viewer)
    with unchanged(world):
        response = _request(client, method, world.url(suffix), data)
    assert response.status_code == 403
    assert "Not allowed" in text(response)


def test_a_viewer_can_read_and_is_offered_no_write_controls(world: World) -> None:
    new_issue(world, "Readable")
    client = world.client_for(world.viewer)
    listing, detail, projects = (client.get(world.url(s)) for s in ("p/WEB/", "p/WEB/1/", ""))
    assert [r.status_code for r in (listing, detail, projects)] == [200, 200, 200]
    assert "Readable" in text(detail)
    assert "New issue" not in text(listing)
    assert "/edit/" not in text(detail)
    assert 'id="quick-status"' not in text(detail)  # the issue page's status form (it posts to /bulk/)
    assert "/bulk/" not in text(detail)
    assert "/delete/" not in text(detail)
    assert "New project" not in text(projects)


MEMBER_FORBIDDEN = [
    pytest.param("get", "projects/new/", None, id="project-create-form"),
    pytest.param("post", "projects/new/", {"key": "MEMB", "name": "By a member"}, id="project-create"),
    pytest.param("post", "p/WEB/1/delete/", {"version": "1"}, id="delete"),
]


@pytest.mark.parametrize(("method", "suffix", "data"), MEMBER_FORBIDDEN)
def test_a_member_gets_403_for_project_create_and_delete(
    world: World, method: str, suffix: str, data: dict | None
) -> None:
    new_issue(world, "Untouched")
    client = world.client_for(world.member)
    with unchanged(world):
        response = _request(client, method, world.url(suffix), data)
    assert response.status_code == 403
    assert not load(world, 1).is_tombstone


def test_a_member_is_offered_edit_and_status_but_not_delete_or_new_project(world: World) -> None:
    new_issue(world)
    client = world.client_for(world.member)
    detail = text(client.get(world.project_url("1/")))
    assert "/edit/" in detail
    assert 'id="quick-status"' in detail  # the issue page's status form (it posts to /bulk/)
    assert "/bulk/" in detail
    assert "/delete/" not in detail
    assert "New project" not in text(client.get(world.url()))


def test_roles_are_per_tenant(world: World, other_world: World) -> None:
    """The owner of one tenant who is a viewer of another cannot write there."""
    from tracker.models import Membership

    Membership.objects.create(user=world.owner, tenant=other_world.tenant, role="viewer")
    new_issue(other_world)
    client = world.client_for(world.owner)
    assert client.get(other_world.project_url("1/")).status_code == 200
    with unchanged(other_world):
        assert client.post(other_world.project_url("1/delete/"), {"version": "1"}).status_code == 403
        assert client.post(other_world.url("projects/new/"), {"key": "OWN", "name": "x"}).status_code == 403
