"""The whole history of an issue on its page: every change in plain words, paged across every period table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html import unescape
from urllib.parse import unquote

import pytest
from django.test import Client, override_settings

from ddbmodels import events
from ddbmodels.core import connection
from tests.conftest import MovingClock
from tests.tracker.activity_helpers import drop_day_tables
from tests.tracker.conftest import World
from tests.tracker.helpers import load, text
from tracker.selectors.activity import issue_history_page

# Days long past, one events table each (EVENTS_PERIOD="day"), that no other test writes to.
DAYS = [datetime(2024, 3, 10, 9, 30, tzinfo=UTC) + timedelta(days=i) for i in range(4)]
pytestmark = pytest.mark.usefixtures("_drop_old_day_tables")


Clock = MovingClock


@pytest.fixture
def clock(moving_clock: MovingClock) -> Clock:
    """``clock(at)``: the code's clock says ``at`` from now on, and may be moved on again (``moving_clock``)."""
    return moving_clock


@pytest.fixture
def _drop_old_day_tables() -> Iterator[None]:
    """The days' events tables are this test's: dropped afterwards (other tests' archive jobs must not see them)."""
    yield
    drop_day_tables(DAYS)


def history(page: str) -> list[str]:
    """The history's lines as a reader sees them: "<actor> <what>", newest first."""
    section = page[page.index('<section class="activity" id="history">') :]
    diff = r'(?:<details class="word-diff">.*?</details>)?'  # what a title or description edit changed
    line = rf"<li><time[^>]*>[^<]*</time> · <strong>([^<]+)</strong> ([^<]+){diff}</li>"
    items = re.findall(line, section, flags=re.DOTALL)
    return [unescape(f"{actor} {what}") for actor, what in items]


def make_a_history(world: World, clock: Clock) -> Client:
    """Four days of work on WEB-1: created, edited (every field), started and commented, resolved."""
    owner = world.owner.username
    client = world.client_for(world.member)
    clock(DAYS[0])
    created = client.post(world.project_url("new/"), {"title": "Crash on save", "priority": "low", "labels": "bug"})
    assert created.status_code == 302
    clock(DAYS[1])
    edit = {
        "title": "Crash when saving",
        "description": "Steps: open, **save**",
        "priority": "high",
        "assignee": owner,
        "labels": "ui, data",
        "version": 1,
    }
    assert client.post(world.project_url("1/edit/"), edit).status_code == 302
    clock(DAYS[2])
    assert client.post(world.project_url("1/status/"), {"to": "in_progress", "version": 2}).status_code == 302
    clock(DAYS[2] + timedelta(minutes=5))  # events of one millisecond would sort by their random suffix
    assert client.post(world.project_url("1/comments/"), {"body": f"@{owner} on it"}).status_code == 302
    clock(DAYS[3])
    assert client.post(world.project_url("1/status/"), {"to": "resolved", "version": 3}).status_code == 302
    return client


@override_settings(EVENTS_PERIOD="day")
def test_every_change_is_a_plain_sentence_newest_first_across_four_periods(world: World, clock: Clock) -> None:
    client = make_a_history(world, clock)
    m, o = world.member.username, world.owner.username
    page = text(client.get(world.project_url("1/")))
    assert history(page) == [
        f"{m} changed the status from In progress to Resolved",
        f"{m} commented",
        f"{m} changed the status from Open to In progress",
        f"{m} changed the title from “Crash on save” to “Crash when saving”",
        f"{m} changed the priority from Low to High",
        f"{m} assigned it to {o}",
        f"{m} edited the description",
        f"{m} added labels data, ui",
        f"{m} removed label bug",
        f"{m} created the issue",
    ]
    assert "Older history is archived." not in page
    assert "issue.status" not in page  # no raw kinds
    assert "<strong>save</strong>" in page  # the description, as markdown


@override_settings(EVENTS_PERIOD="day")
def test_pages_carry_a_signed_cursor_through_the_periods(world: World, clock: Clock) -> None:
    make_a_history(world, clock)
    issue = load(world, 1)
    assert issue is not None

    first = issue_history_page(issue=issue, size=2)
    assert [line.text for line in first.lines] == ["changed the status from In progress to Resolved", "commented"]
    assert first.requests == 2  # today's table, then yesterday's: the page was full there
    assert first.older_cursor is not None
    second = issue_history_page(issue=issue, cursor=first.older_cursor, size=2)
    assert [line.text for line in second.lines][:2] == [
        "changed the status from Open to In progress",
        "changed the title from “Crash on save” to “Crash when saving”",
    ]
    third = issue_history_page(issue=issue, cursor=second.older_cursor, size=2)
    assert [line.text for line in third.lines] == ["created the issue"]
    assert (third.older_cursor, third.archived) == (None, False)


@override_settings(EVENTS_PERIOD="day")
def test_the_page_links_to_older_changes_and_an_archived_period_is_said_not_read(
    world: World, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_a_history(world, clock)
    monkeypatch.setattr("tracker.selectors.activity.HISTORY_PAGE_SIZE", 2)
    first = text(client.get(world.project_url("1/")))
    assert len(history(first)) == 2
    older = re.search(r'<a rel="next" href="\?history=([^"#]+)#history">Older changes</a>', first)
    assert older is not None
    cursor = unquote(unescape(older.group(1)))
    second = text(client.get(world.project_url("1/"), {"history": cursor}))
    assert history(second)[0].endswith("changed the status from Open to In progress")
    assert "Newest changes" in second
    assert client.get(world.project_url("1/"), {"history": cursor[:-2] + "zz"}).status_code == 400

    # The first day's table is archived and dropped: the page says so instead of reading the archive.
    connection.client().delete_table(TableName=events.events_table_name("day", DAYS[0]))
    monkeypatch.setattr("tracker.selectors.activity.HISTORY_PAGE_SIZE", 25)
    page = text(client.get(world.project_url("1/")))
    assert "Older history is archived." in page
    assert not any(line.endswith("created the issue") for line in history(page))
    assert history(page)[-1].endswith("removed label bug")
