"""In Chromium at 1280 and 390 px: a new-issue form whose milestone started closing after the form was shown is
refused on its Milestone field, in the milestone's words, and creates nothing (review round 3, R3-1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues, milestones
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/H")  # noqa: S108  (copies for the person reviewing the pages)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_new_issue_form_whose_milestone_started_closing_says_so_on_its_field(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    made, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.2", due=None, created_by=world.owner.username
    )
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url("new/"))
    page.fill("#id_title", "Late for the release")
    page.select_option("#id_milestone", made.milestone_id)
    # A teammate starts closing v1.2 after the form was shown
    milestones.milestone_set_state(made, state="closing", expected_version=int(made.version), token="a-close")
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_text("Milestone v1.2 is being closed: choose an open one.")).to_be_visible()
    expect(page.locator("#id_title")).to_have_value("Late for the release")  # what was typed stays
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, f"new-issue-milestone-closing-{width}"), SHOTS / f"new-issue-milestone-closing-{width}.png")
    assert issues.issue_number_next(tenant=world.slug, project_key="WEB") == 1
