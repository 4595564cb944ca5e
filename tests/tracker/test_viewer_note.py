"""A viewer is told, discreetly, on the team's pages, that they can read and watch but not change."""

from __future__ import annotations

import pytest

from ddbmodels import issues as ddb_issues
from tests.tracker.conftest import World
from tests.tracker.helpers import text

pytestmark = pytest.mark.ddblocal
NOTE = "You're a viewer in {name}: you can read and watch, not change."


def test_a_viewer_sees_the_note_on_the_project_list_issue_list_and_issue_page(world: World) -> None:
    ddb_issues.issue_create(tenant=world.slug, project_key="WEB", title="Checkout fails", reporter="x")
    note = NOTE.format(name=world.tenant.name)
    for url in (world.url(), world.project_url(), world.project_url("1/")):
        viewer_page = text(world.client_for(world.viewer).get(url))
        assert viewer_page.count(note) == 1, url
        assert 'class="muted viewer-note" role="note"' in viewer_page
        for person in (world.member, world.owner):
            assert "viewer-note" not in text(world.client_for(person).get(url)), url


def test_the_team_page_says_the_role_in_its_own_words_and_not_twice(world: World) -> None:
    page = text(world.client_for(world.viewer).get(world.url("team/")))
    assert "viewer-note" not in page
    assert "a viewer of" in page
