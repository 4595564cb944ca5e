"""Issue activity is written to the current period's events table and shown on the issue page."""

from __future__ import annotations

from django.test import override_settings

from ddbmodels import events
from ddbmodels.patterns import time_series
from tests.tracker.conftest import World


@override_settings(EVENTS_PERIOD="day")
def test_the_issue_page_shows_what_happened_newest_first(world: World) -> None:
    client = world.client_for(world.member)
    client.post(world.project_url("new/"), {"title": "Crash on save", "priority": "high"})
    version = client.get(world.project_url("1/")).context["issue"].version
    client.post(world.project_url("1/status/"), {"to": "in_progress", "version": version})

    page = client.get(world.project_url("1/")).content.decode()
    moved = page.index("changed the status from Open to In progress")
    created = page.index("created the issue")
    assert moved < created  # newest first
    stored = events.stream_events(stream=f"{world.slug}#WEB#1", period="day")
    assert [e.kind for e in stored] == ["issue.status", "issue.created"]
    assert stored[0].table.endswith(time_series.period_id("day", stored[0].at))
    assert stored[0].actor == world.member.username


@override_settings(EVENTS_PERIOD="day")
def test_an_edit_records_which_fields_changed(world: World) -> None:
    client = world.client_for(world.member)
    client.post(world.project_url("new/"), {"title": "Old title", "priority": "low"})
    client.post(world.project_url("1/edit/"), {"title": "New title", "priority": "low", "version": 1})
    stored = events.stream_events(stream=f"{world.slug}#WEB#1", period="day")
    assert stored[0].kind == "issue.edited"
    assert stored[0].data["changed"] == {"title": ["Old title", "New title"]}
