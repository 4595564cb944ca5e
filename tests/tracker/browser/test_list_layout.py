"""Lists at desktop width keep their words whole: no "Statu s", "Assigne e" or "featur e".

Every list page that shares site.css's ``table.list`` is opened at 1280 px with realistic rows, and
each word of each header and cell is measured as the browser lays it out: a word whose glyphs sit
on two lines (two client rectangles at different heights) is a word broken in the middle. A break
after a hyphen ("e-mail") is a normal line break, so words are taken between spaces and hyphens.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from ddbmodels import issues as ddb_issues
from ddbmodels import scores
from tests.tracker.browser.helpers import shot, site_login
from tests.tracker.conftest import World
from tests.tracker.helpers import new_issue
from tests.tracker.orders_helpers import new_order
from tracker.search import indexing as search_indexing

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
ISSUES = [  # title, labels, priority, status
    ("Checkout fails on Safari when the cart has more than ten items", ["bug", "checkout"], "high", "open"),
    ("Dark mode for the dashboard", ["feature"], "medium", "open"),
    ("Deploy pipeline: cache the node modules between runs", ["ci", "performance"], "medium", "in_progress"),
    ("Password reset e-mail never arrives for addresses with a plus sign", ["bug"], "urgent", "open"),
    ("Add CSV export of the monthly report", ["feature", "reporting"], "low", "resolved"),
    ("Upgrade Django to 5.2", ["maintenance", "needs-triage"], "medium", "in_progress"),
]

# Each word (between spaces and hyphens) of each header and cell of table.list whose characters do
# not all sit on one line; [] when every word is whole.
SPLIT_WORDS = """() => {
  const split = [];
  for (const cell of document.querySelectorAll("table.list th, table.list td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const words = /[^\\s-]+/g;
      let match;
      while ((match = words.exec(node.data))) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        const lines = new Set(rects.map((r) => Math.round(r.top)));
        if (lines.size > 1) split.push(match[0]);
      }
    }
  }
  return split;
}"""

# The number of lines of the content of each status and assignee cell of the issue table.
CELL_LINES = """() => Array.from(document.querySelectorAll(
    "table.issues td[data-label=Status] > *, table.issues td[data-label=Assignee] > *"
  )).map((el) => new Set(Array.from(el.getClientRects()).map((r) => Math.round(r.top))).size)"""


@pytest.fixture
def listed(world: World) -> World:
    """Issues in every status, assigned to people, labelled; an order; points on the leaderboard."""
    people = (world.member.username, world.owner.username, None)
    for n, (title, labels, priority, status) in enumerate(ISSUES):
        created = ddb_issues.issue_create(
            tenant=world.slug,
            project_key=world.project_key,
            title=title,
            reporter=world.member.username,
            labels=labels,
            priority=priority,
            assignee=people[n % 3],
        ).item
        if status != "open":
            created = ddb_issues.issue_change_status(created, to=status)
        if status == "resolved":
            scores.award_issue(created)
    new_order(world)
    search_indexing.rebuild(tenant=world.slug)  # issues written straight to DynamoDB: the search index is built
    return world


def test_no_list_breaks_a_word_in_the_middle_at_1280_px(page: Page, listed: World) -> None:
    world = listed
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    site_login(page, world.member.username)
    lists = {
        "project-issues": world.project_url(),
        "project-issues-in-progress": world.project_url("?q=is:in_progress"),
        "team-issues": world.url("issues/"),
        "my-issues": world.url("issues/?q=assignee:@me"),
        "search-results": world.project_url("?q=dashboard"),
        "projects": world.url(),
        "orders": world.url("orders/"),
        "leaderboard": world.url("leaderboard/"),
        "team": world.url("team/"),
    }
    for name, url in lists.items():
        page.goto(url)
        assert page.locator("table.list tbody tr").count() > 0, f"{name}: no rows to measure"
        shot(page, f"list-layout-1280-{name}")
        assert page.evaluate(SPLIT_WORDS) == [], f"{name} breaks these words in the middle"
        lines = page.evaluate(CELL_LINES)
        assert all(n == 1 for n in lines), f"{name}: a status or assignee takes {max(lines)} lines"
        assert int(page.evaluate("document.documentElement.scrollWidth")) <= DESKTOP["width"], name


def test_a_long_word_in_a_title_wraps_inside_the_title_and_the_other_columns_stay_whole(
    page: Page, listed: World
) -> None:
    world = listed
    new_issue(
        world,
        "Slow since https://status.example.com/incidents/2026/11/23/checkout-latency-regression-after-deploy-7f3a9c1e",
        assignee=world.member.username,
        labels=["performance"],
    )
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    site_login(page, world.member.username)
    page.goto(world.project_url())
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= DESKTOP["width"]
    headers = page.locator("table.issues th")
    assert all(h.bounding_box()["height"] < 40 for h in headers.all())  # type: ignore[index]
    split = page.evaluate(SPLIT_WORDS)
    assert all(word.startswith("https") or "/" in word for word in split), split  # only the URL may break
