"""In a real browser, at 1280 and 390 px: a milestone whose close stopped half way says "closing" on the list, the
issue page and the board, and offers members its Resume button, which fits the phone's width."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues, milestones
from ddbmodels.core.keys import utcnow
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/J")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_closing_milestone_says_so_and_is_resumed(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    beta, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.2 beta", due=None, created_by=world.owner.username
    )
    later, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.3", due=None, created_by=world.owner.username
    )
    issue = new_issue(world, "Sign-in step")
    issues.issue_change(issue, token="b-1", milestone=beta.milestone_id)
    milestones.milestone_set_state(beta, state="closing", expected_version=1, to=later.milestone_id, token="a-close")
    stopped = utcnow() - timedelta(minutes=10)  # Resume is offered once a close has lasted (review R3-6)
    beta.update(actions=[milestones.MilestoneItem.updated_at.set(stopped)])
    earlier, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.1", due=None, created_by=world.owner.username
    )
    outcome = {"by": "alice", "at": "2026-11-26T09:00:00+00:00", "token": "t", "closed": False, "moved": 24}
    outcome |= {"to": "v1.3", "refused": {"WEB-1234": "changed meanwhile", "WEB-1240": "changed meanwhile"}}
    milestones.milestone_set_state(earlier, state="open", expected_version=1, outcome=outcome)  # R3-4
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)

    page.goto(world.project_url("milestones/"))
    row = page.locator("li.milestone", has_text="v1.2 beta")
    expect(row).to_contain_text("closing: moving its")
    resume = row.get_by_role("button", name="Resume")
    expect(resume).to_be_visible()
    box = resume.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= width  # on the screen, not past its right edge
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling
    said = page.locator("li.milestone", has_text="v1.1").locator("[data-close-outcome]")
    expect(said).to_have_text(
        "alice’s close left it open: WEB-1234 (changed meanwhile), WEB-1240 (changed meanwhile) were not moved; "
        "24 open issues moved to v1.3."
    )
    _shot(page, f"milestone-closing-01-list-{width}")

    page.goto(world.project_url(f"{issue.number}/"))
    expect(page.locator("[data-milestone]")).to_contain_text("v1.2 beta closing")
    expect(page.locator("#quick-milestone option:checked")).to_have_text("v1.2 beta (closing)")
    _shot(page, f"milestone-closing-02-issue-{width}")
    page.goto(world.project_url("board/"))
    expect(page.locator("option", has_text="v1.2 beta")).to_have_text("v1.2 beta (closing)")

    page.goto(world.project_url("milestones/"))
    page.locator("li.milestone", has_text="v1.2 beta").get_by_role("button", name="Resume").click()
    expect(page.locator("ul.messages li")).to_contain_text("Closing v1.2 beta goes on in the background")
    _shot(page, f"milestone-closing-03-resumed-{width}")
    assert violations == []


@pytest.mark.parametrize("width", [1280, 390])
def test_a_close_into_a_milestone_closed_meanwhile_is_the_form_again_with_the_error(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    """Review R3-5: the page offered v1.3; a teammate closed it before Close was pressed: the close form again,
    the error on "Move them to", nothing moved or closed."""
    beta, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.2 beta", due=None, created_by=world.owner.username
    )
    later, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name="v1.3", due=None, created_by=world.owner.username
    )
    issue = new_issue(world, "Sign-in step")
    issues.issue_change(issue, token="b-1", milestone=beta.milestone_id)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url(f"milestones/{beta.milestone_id}/close/"))
    page.locator("#id_to").select_option(label="v1.3")
    milestones.milestone_set_state(later, state="closed", expected_version=1)  # behind the site's cached list
    page.get_by_role("button", name="Close v1.2 beta").click()
    expect(page.locator("h1")).to_have_text("Close v1.2 beta?")
    expect(page.locator("form.stack")).to_contain_text("v1.3 is not open any more: choose another milestone.")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    _shot(page, f"milestone-closing-04-target-closed-{width}")
    now = milestones.milestone_get(tenant=world.slug, project_key="WEB", milestone_id=beta.milestone_id)
    assert now is not None
    assert now.state == "open"
    assert violations == []
