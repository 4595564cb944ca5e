"""New issue from a page of no one project (/t/<team>/issues/new/, the ``c`` shortcut): which project."""

from __future__ import annotations

from ddbmodels import issues as ddb_projects
from tests.tracker.conftest import World
from tests.tracker.helpers import text


def test_a_team_with_one_project_goes_straight_to_its_new_issue_form(world: World) -> None:
    response = world.client_for(world.member).get(world.url("issues/new/"))
    assert response.status_code == 302
    assert response["Location"] == world.project_url("new/")


def test_a_team_with_several_projects_is_asked_which_one(world: World) -> None:
    ddb_projects.project_create(tenant=world.slug, key="API", name="Public API", created_by=world.owner.username)
    ddb_projects.project_create(
        tenant=world.slug, key="OPS", name="Operations", created_by=world.owner.username, importing="job-1"
    )
    response = world.client_for(world.member).get(world.url("issues/new/"))
    assert response.status_code == 200
    page = text(response)
    assert "in which project?" in page
    assert f'href="/t/{world.slug}/p/API/new/"' in page
    assert f'href="/t/{world.slug}/p/WEB/new/"' in page
    assert f'href="/t/{world.slug}/p/OPS/new/"' not in page  # being imported: no new issues yet
    assert "issues are being imported" in page


def test_a_viewer_is_refused_and_the_page_names_itself_for_shortcuts(world: World) -> None:
    assert world.client_for(world.viewer).get(world.url("issues/new/")).status_code == 403
    listing = text(world.client_for(world.viewer).get(world.url("issues/")))
    assert f'data-search-url="/t/{world.slug}/issues/"' in listing
    assert "data-new-issue-url" not in listing  # "c" offers viewers nothing
    member = text(world.client_for(world.member).get(world.url("orders/")))
    assert f'data-new-issue-url="/t/{world.slug}/issues/new/"' in member
