"""A changed notification setting holds at once: the fan-out's cache (R2-1) and the mail windows already open (R2-2).

DynamoDB Local answers every read consistently, so a lagging replica is played by the client: its
eventually consistent GetItem of the settings item answers what the item held before the change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.core.cache import cache

from ddbmodels import preferences
from ddbmodels.core import connection
from tests.tracker.conftest import World
from tests.tracker.inbox_helpers import (  # noqa: F401  (fixtures: addressed, digests, queued, run_queued)
    Digests,
    addressed_fixture,
    create_assigned,
    digests_fixture,
    queued_fixture,
    run_queued_fixture,
)
from tests.tracker.test_notify_settings import choose, notes_of
from tracker import optional_redis
from tracker.models import Membership
from tracker.selectors.preferences import notify_cache_key, team_notify_settings
from tracker.services import preferences as services

GetItem = Callable[..., dict[str, Any]]


def settings_read(kwargs: dict[str, Any]) -> bool:
    return kwargs.get("TableName") == connection.table_name("preferences") and kwargs["Key"]["s"]["S"] == "n"


def patch_get_item(monkeypatch: pytest.MonkeyPatch, wrap: Callable[[GetItem, dict[str, Any]], dict[str, Any]]) -> None:
    """Every GetItem of a team's settings item goes through ``wrap(real_get_item, kwargs)``."""
    client = connection.client()
    real = client.get_item

    def get_item(**kwargs: Any) -> dict[str, Any]:
        return wrap(real, kwargs) if settings_read(kwargs) else real(**kwargs)

    monkeypatch.setattr(client, "get_item", get_item)


def test_a_setting_saved_holds_for_the_next_fan_out_though_a_replica_lags(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    world, bob = addressed, addressed.member.username
    cache.clear()
    lagging: dict[str, Any] = {}  # what an eventually consistent read answers: the item before the change

    def lag(real: GetItem, kwargs: dict[str, Any]) -> dict[str, Any]:
        return lagging if not kwargs.get("ConsistentRead") else real(**kwargs)

    patch_get_item(monkeypatch, lag)
    choose(world, world.client_for(world.member), "off")  # "Saved your notification settings."
    create_assigned(world, world.client_for(world.owner), bob)  # at once: a busy team

    (report,) = run_queued()

    assert report["delivered"] == []  # off means off from the moment it was saved
    assert notes_of(world, bob) == []


def test_a_refill_that_read_before_a_change_never_stores_the_settings_it_read(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob = world.member.username
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    cache.clear()

    def read_then_bob_saves(real: GetItem, kwargs: dict[str, Any]) -> dict[str, Any]:
        answer = real(**kwargs)  # the refill reads the settings as they were ...
        monkeypatch.undo()
        services.notify_set(membership=membership, level="off", email=True, expected_version=0)  # ... bob saves ...
        return answer  # ... and the refill stores what it read, after the save

    patch_get_item(monkeypatch, read_then_bob_saves)
    assert bob not in team_notify_settings(world.slug)  # that fan-out began before the save: it may use the old

    assert team_notify_settings(world.slug)[bob].level == "off"  # the next one sees the save (from the cache)
    assert team_notify_settings(world.slug)[bob] == preferences.notify_settings(world.slug, consistent=True)[bob]


def test_the_fan_out_reads_the_settings_consistently_and_keeps_what_a_save_wrote(world: World) -> None:
    bob = world.member.username
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    cache.clear()
    assert team_notify_settings(world.slug) == {}  # cached: the team's empty settings

    saved = services.notify_set(membership=membership, level="watching", email=False, expected_version=0)
    cache_after_save = team_notify_settings(world.slug)
    services.notify_set(membership=membership, level="off", email=True, expected_version=saved.version)

    assert cache_after_save == {bob: preferences.NotifySetting("watching", False, 1)}
    assert team_notify_settings(world.slug) == {bob: preferences.NotifySetting("off", True, 2)}


def test_email_off_drops_the_mail_windows_already_open(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob)
    run_queued()
    assert len(digests.scheduled) == 1  # bob's window for WEB-1 is open, its e-mail due when it closes

    page = world.client_for(world.member).get(world.url("settings/notifications/"))
    assert "Turning e-mail off takes effect at once, also for a batch not sent yet." in page.content.decode()
    choose(world, world.client_for(world.member), "participating", email=False)
    (report,) = digests.run()

    assert mail.outbox == []  # "e-mail off" stops the e-mail the window would have sent
    assert report == {"sent": 0, "already": False, "notifications": 0, "dropped": 1}
    assert len(notes_of(world, bob)) == 1  # the inbox keeps the notification
    assert digests.run() == []  # and nothing is put back into a window for later


def test_off_drops_the_mail_windows_already_open(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    world, bob = addressed, addressed.member.username
    create_assigned(world, world.client_for(world.owner), bob)
    run_queued()

    choose(world, world.client_for(world.member), "off")
    (report,) = digests.run()

    assert mail.outbox == []
    assert report["dropped"] == 1


def test_without_redis_the_settings_are_read_from_dynamodb_and_a_save_still_holds(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob = world.member.username
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    cache.clear()
    monkeypatch.setattr(optional_redis, "paused", lambda: True)  # Redis failed a moment ago: left alone

    saved = services.notify_set(membership=membership, level="off", email=True, expected_version=0)

    assert saved == preferences.NotifySetting("off", True, 1)
    assert team_notify_settings(world.slug) == {bob: saved}  # a consistent read each time, nothing stored
    monkeypatch.undo()
    assert optional_redis.client().exists(cache.make_key(notify_cache_key(world.slug))) == 0


def test_a_cache_entry_that_does_not_read_is_a_miss_and_is_mended(world: World) -> None:
    bob = world.member.username
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    services.notify_set(membership=membership, level="watching", email=True, expected_version=0)
    key = cache.make_key(notify_cache_key(world.slug))
    optional_redis.client().hset(key, "d", "not json")

    assert team_notify_settings(world.slug)[bob].level == "watching"  # read from DynamoDB, and stored again
    assert optional_redis.client().hget(key, "d") != b"not json"


def test_email_off_saved_while_this_process_pauses_redis_holds_for_the_digest_at_once(
    addressed: World, run_queued: Callable[[], list[dict[str, Any]]], digests: Digests
) -> None:
    """R3-7: the save could not tell Redis (paused here after one timeout), which other processes still serve:
    their cache keeps "e-mail on" for up to PROJECT_CACHE_SECONDS, but the digest reads DynamoDB itself."""
    world, bob = addressed, addressed.member.username
    cache.clear()
    create_assigned(world, world.client_for(world.owner), bob)
    run_queued()  # the fan-out cached the team's settings (bob: the default, e-mail on); bob's window is open
    assert len(digests.scheduled) == 1
    membership = Membership.objects.get(tenant=world.tenant, user=world.member)
    optional_redis.failed("test: one Redis timeout in the saving process", OSError("timeout"))
    try:
        services.notify_set(membership=membership, level="participating", email=False, expected_version=0)
    finally:
        optional_redis.resume()  # Redis was fine for the worker all along
    assert team_notify_settings(world.slug).get(bob) is None  # the worker's cache still says: the default

    (report,) = digests.run()

    assert mail.outbox == []
    assert report == {"sent": 0, "already": False, "notifications": 0, "dropped": 1}


def test_the_page_says_when_a_change_reaches_the_inbox_and_the_e_mail(world: World) -> None:
    page = world.client_for(world.member).get(world.url("settings/notifications/")).content.decode()
    assert "Turning e-mail off takes effect at once, also for a batch not sent yet." in page
    assert "within 5 minutes" in page  # the inbox's level: the site's cache, told at once unless it was failing
