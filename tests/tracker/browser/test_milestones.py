"""In a real browser, at 1280 and 390 px: a member creates a milestone, sees its progress, filters the list by it,
puts an issue in it from the issue page, and closes it moving its open issues to another milestone."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues, milestones
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tracker.services.projects import project_counts_refresh

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/C")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_member_plans_a_milestone_and_closes_it(page: Page, world: World, violations: list[str], width: int) -> None:
    later, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.3", due=None, created_by=world.owner.username
    )
    made = [new_issue(world, f"Sign-in step {n}") for n in range(1, 6)]
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url())
    page.locator("nav.project-views").get_by_role("link", name="Milestones").click()
    page.get_by_role("link", name="New milestone").click()
    page.get_by_label("Name").fill("v1.2 beta")
    page.get_by_label("Due date").fill("2026-12-06")
    page.get_by_label("Description").fill("Sign-in, end to end.")
    page.get_by_role("button", name="Create milestone").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Milestone v1.2 beta created.")
    beta = milestones.by_name(milestones.milestone_list(tenant=world.slug, project_key="WEB"), "v1.2 beta")
    assert beta is not None

    page.goto(world.project_url(f"{made[0].number}/"))  # one from the issue page's form
    page.get_by_label("Milestone").select_option(label="v1.2 beta")
    page.get_by_role("button", name="Set").click()
    expect(page.locator("[data-milestone]")).to_contain_text("v1.2 beta")
    _shot(page, f"milestones-01-issue-{width}")
    for issue in made[1:]:  # the others as a script would
        current = load(world, int(issue.number))
        assert current is not None
        issues.issue_change(current, token=f"b-{issue.number}", milestone=beta.milestone_id)
    for issue in made[:3]:
        current = load(world, int(issue.number))
        assert current is not None
        issues.issue_change_status(current, to="resolved")
    project_counts_refresh(tenant=world.slug, key="WEB")  # what the debounced job does a moment later

    page.goto(world.project_url("milestones/"))
    row = page.locator("li.milestone", has_text="v1.2 beta")
    expect(row.locator("[data-progress]")).to_contain_text("60 % done")
    expect(row.locator("progress")).to_have_attribute("value", "3")
    _shot(page, f"milestones-02-list-{width}")
    row.get_by_role("link", name="2 open").click()
    expect(page.locator("#issue-q")).to_have_value('is:open milestone:"v1.2 beta"')
    expect(page.locator("table.list tbody tr")).to_have_count(2)
    _shot(page, f"milestones-03-filtered-{width}")

    page.goto(world.project_url("milestones/"))
    page.locator("li.milestone", has_text="v1.2 beta").get_by_role("link", name="Close").click()
    expect(page.locator("[data-open-count]")).to_contain_text("v1.2 beta still has 2 open issues")
    page.locator("#id_to").select_option(label="v1.3")
    _shot(page, f"milestones-04-close-{width}")
    page.get_by_role("button", name="Close v1.2 beta").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Milestone v1.2 beta closed. 2 open issues moved.")
    expect(page.locator("[data-milestones=closed]")).to_contain_text("v1.2 beta")
    _shot(page, f"milestones-05-closed-{width}")
    moved = [load(world, int(issue.number)) for issue in made[3:]]
    assert [i.milestone for i in moved if i] == [later.milestone_id] * 2
    assert violations == []
    assert re.search(r"v1\.3", page.content())
