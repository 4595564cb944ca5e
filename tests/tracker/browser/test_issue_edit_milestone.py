"""In Chromium at 1280 and 390 px: the edit form's Milestone select moves the issue to another milestone with
its other changes, keeps a closed one as it is, and the issue page and its history say so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ddbmodels import issues, milestones
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/C")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _milestone(world: World, name: str) -> milestones.MilestoneItem:
    made, _ = milestones.milestone_create(
        tenant=world.slug, project_key="WEB", name=name, due=None, created_by=world.owner.username
    )
    return made


@pytest.mark.parametrize("width", [1280, 390])
def test_a_member_moves_an_issue_to_another_milestone_from_the_edit_form(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    v12, v13, old = _milestone(world, "v1.2"), _milestone(world, "v1.3"), _milestone(world, "v0.9")
    made = new_issue(world, "Sign-in page times out", labels=["ui"])
    issues.issue_change(made, token="put", milestone=v12.milestone_id)
    shipped = new_issue(world, "Shipped in 0.9")
    issues.issue_change(shipped, token="put", milestone=old.milestone_id)
    # closed after the issue was put in it (a write into a closed milestone is refused: ddbmodels.issues.guarded)
    milestones.milestone_set_state(old, state="closed", expected_version=int(old.version))
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)

    page.goto(world.project_url(f"{made.number}/edit/"))
    select = page.locator("#id_milestone")
    expect(select.locator("option:checked")).to_have_text("v1.2")
    expect(select.locator("option")).to_have_text(["— none —", "v1.2", "v1.3"])  # closed ones are not offered
    select.select_option(label="v1.3")
    page.fill("#id_title", "Sign-in page times out on slow networks")
    _shot(page, f"issue-edit-milestone-01-form-{width}")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("ul.messages li.success")).to_have_text(f"Saved {made.reference}.")
    expect(page.locator("[data-milestone]")).to_contain_text("v1.3")
    history = page.locator("#history")
    expect(history).to_contain_text("moved it from milestone v1.2 to v1.3")
    expect(history).to_contain_text("changed the title")
    _shot(page, f"issue-edit-milestone-02-saved-{width}")
    after = load(world, int(made.number))
    assert after is not None
    assert (after.milestone, after.labels) == (v13.milestone_id, {"ui"})

    page.goto(world.project_url(f"{shipped.number}/edit/"))  # in a closed milestone: shown, kept on saving
    expect(page.locator("#id_milestone option:checked")).to_have_text("v0.9 (closed)")
    page.fill("#id_title", "Shipped in 0.9 (checked)")
    _shot(page, f"issue-edit-milestone-03-closed-{width}")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("ul.messages li.success")).to_have_text(f"Saved {shipped.reference}.")
    kept = load(world, int(shipped.number))
    assert kept is not None
    assert (kept.title, kept.milestone) == ("Shipped in 0.9 (checked)", old.milestone_id)
    assert "milestone" not in page.locator("#history li").first.inner_text()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_stale_edit_shows_both_milestone_moves_and_saves_the_one_chosen(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    v12, v13, v14 = _milestone(world, "v1.2"), _milestone(world, "v1.3"), _milestone(world, "v1.4")
    made = new_issue(world, "Checkout button misaligned")
    issues.issue_change(made, token="put", milestone=v12.milestone_id)
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.project_url(f"{made.number}/edit/"))
    current = load(world, int(made.number))
    assert current is not None
    issues.issue_change(current, token="theirs", milestone=v13.milestone_id)  # a teammate moves it meanwhile

    page.locator("#id_milestone").select_option(label="v1.4")
    page.get_by_role("button", name="Save").click()

    expect(page.locator(".current")).to_contain_text("milestone v1.3")
    row = page.locator("table.conflicts tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("th, td")).to_have_text(["Milestone", "v1.3", "v1.4"])  # field, theirs (saved), mine
    expect(page.locator("#id_milestone option:checked")).to_have_text("v1.4")  # my choice stays in the form
    _shot(page, f"issue-edit-milestone-04-stale-{width}")
    page.get_by_role("button", name="Save").click()  # saved on purpose, on the version shown
    expect(page.locator("[data-milestone]")).to_contain_text("v1.4")
    after = load(world, int(made.number))
    assert after is not None
    assert after.milestone == v14.milestone_id
