"""Notification settings per person and team: the page, and the fan-out honouring them (off, watching, e-mail off)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.core import mail
from django.core.cache import cache
from django.test import Client

from ddbmodels import inbox, preferences
from ddbmodels.core import capacity
from tests.tracker.conftest import World
from tests.tracker.helpers import hidden_value, text, version_of
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    Queued,
    addressed_fixture,
    create_assigned,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)


def notes_of(world: World, username: str) -> list[str]:
    head = inbox.head_get(tenant=world.slug, username=username)
    page = inbox.notification_page(tenant=world.slug, username=username, read_through=head.read_through)
    return [n.text for n in page.items]


def choose(world: World, client: Client, level: str, *, email: bool = True) -> None:
    page = client.get(world.url("settings/notifications/"))
    form = {"level": level, "version": hidden_value(page, "version")}
    if email:
        form["email"] = "on"
    response = client.post(world.url("settings/notifications/"), form)
    assert response.status_code == 302, text(response)


def test_the_page_shows_the_defaults_the_batching_and_saves_on_its_version(world: World, other_world: World) -> None:
    client = world.client_for(world.member)
    page = client.get(world.url("settings/notifications/"))

    body = text(page)
    assert page.status_code == 200
    assert re.search(r'<input type="radio" name="level" value="participating"[^>]* checked', body)
    assert re.search(r'<input type="checkbox" name="email"[^>]* checked', body)
    assert "at most one e-mail per issue every 5 minutes" in body
    assert hidden_value(page, "version") == "0"

    saved = client.post(world.url("settings/notifications/"), {"level": "watching", "version": "0"}, follow=True)
    assert "Saved your notification settings." in text(saved)
    assert preferences.notify_settings(world.slug, consistent=True)[world.member.username] == preferences.NotifySetting(
        level="watching", email=False, version=1
    )
    stale = client.post(world.url("settings/notifications/"), {"level": "off", "version": "0"})  # another tab
    assert stale.status_code == 409
    assert client.post(world.url("settings/notifications/"), {"level": "loud", "version": "1"}).status_code == 400
    assert preferences.notify_settings(world.slug, consistent=True)[world.member.username].level == "watching"
    assert other_world.client_for(other_world.owner).get(world.url("settings/notifications/")).status_code == 404


def test_off_means_no_inbox_note_and_no_email(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    choose(world, world.client_for(world.member), "off")
    create_assigned(world, world.client_for(world.owner), bob)

    (report,) = run_queued()

    assert report["delivered"] == []
    assert notes_of(world, bob) == []
    assert digests.scheduled == []
    assert bob in inbox.watchers(tenant=world.slug, project_key="WEB", number=1)  # still watching: on again, told


def test_watching_makes_every_new_issue_reach_the_person_and_its_later_changes_too(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, carol, owner = addressed, addressed.viewer.username, addressed.owner.username
    choose(world, world.client_for(world.viewer), "watching")
    owner_client = world.client_for(world.owner)
    create_assigned(world, owner_client, owner, title="Nothing to do with carol")
    (created,) = run_queued()
    owner_client.post(world.project_url("1/status/"), {"to": "in_progress", "version": version_of(world, 1)})
    (moved,) = run_queued()

    assert carol in created["watchers_added"]
    assert created["delivered"] == [carol]
    assert moved["delivered"] == [carol]
    assert len(notes_of(world, carol)) == 2
    assert [kwargs["username"] for kwargs, _ in digests.scheduled] == [carol]  # one window for the issue


def test_participating_people_hear_only_of_their_issues(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world, carol, owner = addressed, addressed.viewer.username, addressed.owner.username
    create_assigned(world, world.client_for(world.owner), owner, title="Nothing to do with carol")

    (created,) = run_queued()

    assert carol not in created["watchers_added"]
    assert notes_of(world, carol) == []


def test_email_off_delivers_the_note_and_mails_nothing(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    choose(world, world.client_for(world.member), "participating", email=False)
    create_assigned(world, world.client_for(world.owner), bob)

    (report,) = run_queued()

    assert report["delivered"] == [bob]
    assert report["mailed"] == 0
    assert len(notes_of(world, bob)) == 1
    assert digests.scheduled == []
    assert mail.outbox == []


def test_a_fan_out_reads_the_settings_once_and_then_from_the_cache(
    addressed: World, queued: Queued, run_queued: Callable[[], list[dict[str, Any]]]
) -> None:
    world = addressed
    choose(world, world.client_for(world.member), "off")
    create_assigned(world, world.client_for(world.owner), world.member.username)
    queued.append(dict(queued[0]))
    cache.clear()  # the request that queued it filled the cache: start cold

    with capacity.measure() as meter:
        first, second = run_queued()

    totals = meter.by_pattern["preferences.notify_get"]
    assert (totals.requests, totals.rcu) == (1, 1.0)  # one consistent GetItem for both fan-outs (R2-1)
    assert first["delivered"] == second["delivered"] == []


def test_an_oversized_version_is_a_form_error_and_changes_nothing(world: World) -> None:
    client = world.client_for(world.member)

    # 40 digits: DynamoDB refuses a number that long (a 500 before the form bounded it)
    response = client.post(world.url("settings/notifications/"), {"level": "off", "version": "9" * 40})

    assert response.status_code == 400
    assert preferences.notify_settings(world.slug, consistent=True) == {}
