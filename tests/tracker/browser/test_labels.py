"""The labels a team manages, in a real browser at desktop and phone width: create one in a colour, see it on
the list rows and the issue page, rename it (the confirm page says how many issues follow), delete another."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/A")  # noqa: S108  (copies for the person reviewing the pages)


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot(page, name), SHOTS / f"{name}.png")


def _fits(page: Page, width: int) -> None:
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= width


@pytest.mark.parametrize("width", [1280, 390])
def test_a_member_colours_renames_and_deletes_labels(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    new_issue(world, "Checkout button does nothing", labels={"bug", "frontend"})
    new_issue(world, "Slow landing page", labels={"perf", "bug"})
    new_issue(world, "Old docs link", labels={"docs"})
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.url("labels/"))
    page.get_by_role("link", name="Edit bug").click()
    page.locator("label.swatch", has_text="red").click()
    page.get_by_label("Description").fill("Something does not work as it should")
    _fits(page, width)
    _shot(page, f"labels-01-edit-{width}")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Label bug saved.")
    page.get_by_role("link", name="New label").click()
    page.get_by_label("Name").fill("needs-review")
    page.locator("label.swatch", has_text="teal").click()
    page.get_by_role("button", name="Create label").click()
    chip = page.locator("table.labels a.label", has_text="bug")
    expect(chip).to_have_class("label label-red")
    assert chip.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 235, 233)"
    _fits(page, width)
    _shot(page, f"labels-02-list-{width}")
    # no cell repeats its column's caption on each card at 390 px ("Description", "Actions"), and a label without
    # a description has no empty line for it
    captions = page.locator("table.labels td").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c, '::before').content).filter(c => c !== 'none' && c !== 'normal')"
    )
    assert captions == []
    if width == 390:
        card = page.locator("table.labels tr", has_text="needs-review")
        expect(card.locator("td.text")).to_be_hidden()
        # a card is its chip and its buttons, no blank lines (a 1rem margin on each side of the buttons made ~100 px)
        assert card.evaluate("tr => tr.getBoundingClientRect().height") < 80

    # the issue list shows it in colour, and a chip filters the list
    page.goto(world.project_url())
    row_chip = page.locator("table.issues a.label-red", has_text="bug").first
    expect(row_chip).to_be_visible()
    _fits(page, width)
    _shot(page, f"labels-03-issue-list-{width}")
    row_chip.click()
    expect(page.locator("#issue-q")).to_have_value("label:bug")
    page.goto(world.project_url("1/"))
    expect(page.locator("dd a.label-red", has_text="bug")).to_be_visible()
    _shot(page, f"labels-04-issue-page-{width}")

    # rename: the confirm page says how many issues follow, then they do
    page.goto(world.url("labels/"))
    page.get_by_role("link", name="Rename bug").click()
    page.get_by_label("New name").fill("defect")
    page.get_by_role("button", name="Next: see what changes").click()
    expect(page.locator("#count")).to_contain_text("2 issues change from bug to defect")
    _fits(page, width)
    _shot(page, f"labels-05-rename-confirm-{width}")
    page.get_by_role("button", name="Rename bug to defect").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Renaming bug to defect: 2 issues changed.")
    expect(page.locator("table.labels a.label-red", has_text="defect")).to_be_visible()
    issue = load(world, 2)
    assert issue is not None
    assert set(issue.labels or ()) == {"defect", "perf"}

    # delete: the page names the issues that lose the label first
    page.get_by_role("link", name="Delete docs").click()
    expect(page.locator("ul.lose li")).to_have_text(["WEB-3 Old docs link"])
    _fits(page, width)
    _shot(page, f"labels-06-delete-confirm-{width}")
    page.get_by_role("button", name="Delete docs").click()
    expect(page.locator("ul.messages li.success")).to_have_text("Deleting docs: 1 issue changed.")
    page.get_by_text("Renamed and deleted (2)").click()
    expect(page.locator("main details li", has_text="bug")).to_contain_text("renamed to")
    _fits(page, width)
    _shot(page, f"labels-07-after-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_progress_of_a_running_rename_updates_by_itself_and_the_page_reloads_when_done(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    """A rename running in the background: the labels page asks for its progress every few seconds (labels.js, a
    small JSON answer) and shows it without a reload; when it is done the page reloads and lists it as renamed."""
    from ddbmodels import labels as ddb_labels
    from tracker.services import labels as label_service

    ddb_labels.registry_ensure(world.slug, ["bug", "defect"])
    busy = ddb_labels.label_mark(
        world.slug, "bug", state=ddb_labels.RENAMING, expected_version=0, renamed_to="defect", total=30
    )
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.url("labels/"))
    item = page.locator("li[data-progress]", has_text="bug")
    expect(item).to_contain_text("0 of 30 issues done.")
    expect(page.locator("#progress-help")).to_have_text(
        "The progress updates by itself; the page reloads when the change is done."
    )
    ddb_labels.label_progress(world.slug, "bug", done=25)
    expect(item.locator(".progress-text")).to_have_text("25 of 30 issues done.", timeout=10_000)
    assert item.locator("progress").evaluate("e => e.value") == 25
    _fits(page, width)
    _shot(page, f"labels-08-progress-{width}")
    label_service.label_move(tenant=world.slug, label=busy, actor="member")  # the last batch: nothing left, gone
    expect(page.locator("#busy-h")).to_have_count(0, timeout=10_000)
    expect(page.get_by_text("Renamed and deleted (1)")).to_be_visible()
    _shot(page, f"labels-09-progress-done-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_big_change_s_progress_says_how_many_are_done_until_the_job_has_counted_them(
    page: Page, world: World, violations: list[str], width: int
) -> None:
    """A rename too big for the request to count (R2-11): the job counts its issues first. Meanwhile the page says
    how many are done (labels.js too, without a reload), then "N of M" once the job has stored the total."""
    from ddbmodels import labels as ddb_labels

    ddb_labels.registry_ensure(world.slug, ["bug", "defect"])
    ddb_labels.label_mark(world.slug, "bug", state=ddb_labels.RENAMING, expected_version=0, renamed_to="defect")
    page.set_viewport_size({"width": width, "height": 900})
    site_login(page, world.member.username)
    page.goto(world.url("labels/"))
    text = page.locator("li[data-progress]", has_text="bug").locator(".progress-text")
    expect(text).to_have_text("0 issues done; counting how many in all.")
    ddb_labels.label_progress(world.slug, "bug", done=25)
    expect(text).to_have_text("25 issues done; counting how many in all.", timeout=10_000)
    _fits(page, width)
    _shot(page, f"labels-10-counting-{width}")
    ddb_labels.label_progress(world.slug, "bug", done=25, total=40)
    expect(text).to_have_text("25 of 40 issues done.", timeout=10_000)
    assert page.locator("li[data-progress] progress").evaluate("e => [e.value, e.max]") == [25, 40]
