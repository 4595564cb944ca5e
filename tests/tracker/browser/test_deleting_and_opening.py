"""In Chromium at 1280 and 390 px (issue 20, findings 9 and 14): opening a notification is a press on its row
(a POST that marks it read; following its old address changes nothing), and deleting an issue asks on a page
that says what goes. Screenshots in /tmp/shots/g6/."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from ddbmodels import comments, inbox
from ddbmodels import issues as ddb_issues
from ddbmodels.core.keys import utcnow
from ddbmodels.events.model import new_sort_key
from tests.tracker.attachment_helpers import upload
from tests.tracker.browser.helpers import site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import load, new_issue
from tests.tracker.test_deleting import long_history
from tracker.services import deleting

pytestmark = pytest.mark.browser

SHOTS = Path(tempfile.gettempdir()) / "shots" / "g6"  # /tmp/shots/g6
SHOTS_R4 = Path(tempfile.gettempdir()) / "shots" / "R4"  # a long history deleted over several tries
SHOTS_S3 = Path(tempfile.gettempdir()) / "shots" / "S3"  # a comment sent after its issue was deleted
VIEWPORTS: list[ViewportSize] = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def fits(page: Page, viewport: ViewportSize) -> None:
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= viewport["width"]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "390"])
def test_opening_a_notification_marks_it_read_and_its_old_address_changes_nothing(
    page: Page, world: World, viewport: ViewportSize
) -> None:
    new_issue(world, "Checkout times out for customers paying with a long card holder name")
    key = new_sort_key(utcnow())
    text = f"{world.owner.username} moved WEB-1 “Checkout times out” from Open to In progress"
    note = inbox.Note(
        username=world.member.username, project_key="WEB", number=1, actor=world.owner.username, kind="issue.status",
        text=text,
    )  # fmt: skip
    inbox.deliver(tenant=world.slug, event_key=key, notes=[note])
    page.set_viewport_size(viewport)
    site_login(page, world.member.username)

    page.goto(f"/t/{world.slug}/inbox/{key.replace('#', '~')}/")  # an old link (a bookmark, a prefetch)
    expect(page).to_have_url(f"/t/{world.slug}/p/WEB/1/")
    header = page.locator("header.top").get_by_role("link", name="Inbox")
    expect(header).to_contain_text("1")  # still unread

    header.click()
    row = page.locator("ol.inbox li.unread button.note")
    expect(row).to_have_text(text)
    expect(row).to_have_css("font-weight", "600")
    fits(page, viewport)
    shot(page, f"inbox-unread-{viewport['width']}")

    row.click()
    expect(page).to_have_url(f"/t/{world.slug}/p/WEB/1/")
    expect(header).to_have_text("Inbox")
    page.goto(f"/t/{world.slug}/inbox/")
    expect(page.locator("ol.inbox li.read button.note")).to_have_css("font-weight", "400")
    shot(page, f"inbox-read-{viewport['width']}")


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "390"])
def test_the_delete_page_says_what_goes_and_deleting_takes_it(
    page: Page, world: World, media: Path, viewport: ViewportSize
) -> None:
    new_issue(world, "Quarterly payroll export fails for contractors with very long names")
    for body in ("First look: the export stops at row 200.", "Same here."):
        comments.comment_add(tenant=world.slug, project_key="WEB", number=1, author=world.member.username, body=body)
    assert upload(world.client_for(world.member), world, b"a,b\n", "payroll-2026-Q3-contractors.csv").status_code == 302
    page.set_viewport_size(viewport)
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/p/WEB/1/")
    shot(page, f"issue-with-delete-link-{viewport['width']}")

    page.get_by_role("link", name="Delete issue…").click()
    expect(page.locator("h1")).to_have_text("Delete WEB-1?")
    removed = page.locator("ul.removed")
    expect(removed).to_contain_text("2 comments")
    expect(removed).to_contain_text("1 attached file (payroll-2026-Q3-contractors.csv)")
    expect(page.locator(".confirm")).to_contain_text("never given to another issue")
    fits(page, viewport)
    shot(page, f"delete-issue-{viewport['width']}")

    page.get_by_role("button", name="Yes, delete WEB-1").click()
    expect(page).to_have_url(f"/t/{world.slug}/p/WEB/")
    expect(page.locator(".messages")).to_contain_text("Deleted WEB-1 with its comments, files and history")
    shot(page, f"deleted-issue-{viewport['width']}")
    assert list(media.rglob("*.csv")) == []
    stored = load(world, 1)
    assert stored is not None
    assert stored.is_tombstone


def test_deleting_a_comment_asks_saying_its_words_leave_the_history_too(page: Page, world: World) -> None:
    new_issue(world, "Rotate the keys")
    world.client_for(world.member).post(world.project_url("1/comments/"), {"body": "the code is 4417"})  # + event
    site_login(page, world.member.username)
    page.goto(f"/t/{world.slug}/p/WEB/1/")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.locator("li.comment").get_by_role("button", name="Delete").click()
    expect(page.locator(".messages")).to_contain_text("Comment deleted.")
    assert asked == [
        "Delete this comment? Its words also leave the issue's history and the notifications that quoted it."
    ]
    expect(page.locator("li.comment")).to_have_count(0)
    expect(page.locator("#history")).to_contain_text(f"commented (deleted by {world.member.username})")
    expect(page.locator("main")).not_to_contain_text("4417")


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "390"])
def test_a_long_history_is_deleted_over_several_tries_each_saying_what_is_left(
    page: Page, world: World, viewport: ViewportSize, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_history(world, 29)  # 30 events: a batch of 25, then 5
    monkeypatch.setattr(deleting, "REQUEST_UPDATES", 1)  # one batch a request (the live server is this process)
    page.set_viewport_size(viewport)
    site_login(page, world.owner.username)
    page.goto(f"/t/{world.slug}/p/WEB/1/delete/")

    page.get_by_role("button", name="Yes, delete WEB-1").click()
    expect(page.locator("h1")).to_have_text("Deleting WEB-1 goes on")  # in the team's words, not "Unavailable"
    expect(page.locator("main")).to_contain_text(
        "This try removed 25 events of the history of WEB-1 and 5 are left. Delete it again to go on"
    )
    fits(page, viewport)
    SHOTS_R4.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS_R4 / f"delete-goes-on-{viewport['width']}.png"), full_page=True)
    page.get_by_role("link", name="Back to WEB-1").click()
    page.get_by_role("link", name="Delete issue…").click()
    page.get_by_role("button", name="Yes, delete WEB-1").click()

    expect(page).to_have_url(f"/t/{world.slug}/p/WEB/")
    expect(page.locator(".messages")).to_contain_text("Deleted WEB-1")
    stored = load(world, 1)
    assert stored is not None
    assert stored.is_tombstone


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "390"])
def test_a_comment_sent_after_its_issue_was_deleted_is_told_so(
    page: Page, world: World, viewport: ViewportSize
) -> None:
    new_issue(world, "Going away")
    page.set_viewport_size(viewport)
    site_login(page, world.member.username)
    page.goto(world.project_url("1/"))
    page.fill("textarea[name=body]", "the code is 4417")
    issue = load(world, 1)
    assert issue is not None
    ddb_issues.issue_tombstone(issue, by=world.owner.username)  # deleted while the page was open

    page.get_by_role("button", name="Comment").click()

    expect(page.locator("h1")).to_have_text("WEB-1 was deleted")
    expect(page.locator("main")).to_contain_text("Your comment was not posted; nothing of it was stored.")
    fits(page, viewport)
    SHOTS_S3.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS_S3 / f"comment-on-deleted-{viewport['width']}.png"), full_page=True)
    page.get_by_role("link", name="Back to WEB").click()
    expect(page).to_have_url(world.project_url(""))
