"""Saved views and notification settings as pages and the fan-out see them, cached in Redis (cache-aside).

The header menu shows a person's views and the team's shared ones: two Queries (0.5 RCU each), each
cached — the shared list per team (``ddb:views:<team>``), a person's list per person
(``ddb:views:<team>#<name>``) — and dropped by every write that changes them (``services.preferences``).
The notification settings are one consistent GetItem a fan-out (1 RCU), cached per team
(``notify-settings:<team>``, a Redis hash: the settings and the generation they were read or written at).
A saved setting holds at once: the save stores what it wrote (``notify_cache_keep``), and a store never
replaces a newer generation (one Lua script, atomic), so a refill that read before the save and stores
after it keeps nothing. While Redis fails, fan-outs read DynamoDB (consistent); an entry Redis kept
through its failure, older than a save made meanwhile, is served until it expires (``PROJECT_CACHE_SECONDS``):
the settings page says so for the inbox. E-mail does not depend on it: a digest about to be sent reads the
settings from DynamoDB (``services.inbox.digests.send_digest``), so turning e-mail off holds at once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import Http404

from ddbmodels import preferences
from ddbmodels.preferences import NotifySetting, SavedView, TeamNotify
from tracker import optional_redis
from tracker.cache import cached
from tracker.models import Membership

log = logging.getLogger(__name__)
VIEWS_CACHE_SECONDS = 300


def shared_views_cache_key(tenant: str) -> str:
    return f"ddb:views:{tenant}"


def my_views_cache_key(tenant: str, username: str) -> str:
    return f"ddb:views:{tenant}#{username}"


def notify_cache_key(tenant: str) -> str:
    return f"notify-settings:{tenant}"  # a Redis hash (``notify_cache_keep``), not a cache value


# Store the settings (ARGV[2]) at generation ARGV[1] unless the hash holds a newer one (the same generation is the
# same settings: stored again, which mends an entry that does not read).
KEEP_NEWER = """
local have = redis.call('HGET', KEYS[1], 'g')
if have and tonumber(have) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'g', ARGV[1], 'd', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def _dump_views(views: list[SavedView]) -> list[dict]:
    return [{**asdict(v), "created_at": v.created_at.isoformat() if v.created_at else None} for v in views]


def _restore_views(raw: list[dict]) -> list[SavedView]:
    return [
        SavedView(**{**v, "created_at": datetime.fromisoformat(v["created_at"]) if v["created_at"] else None})
        for v in raw
    ]


def _views(key: str, load: Callable[[], list[SavedView]], *, cached_only: bool) -> list[SavedView] | None:
    def read() -> list[SavedView] | None:
        return None if cached_only else load()

    views: list[SavedView] | None = cached(
        key,
        VIEWS_CACHE_SECONDS,
        read,
        dump=lambda found: _dump_views(found or []),
        restore=_restore_views,
        keep=lambda found: found is not None,
    )
    return None if views is None else sorted(views, key=lambda v: (v.name.casefold(), v.id))


def my_views(*, tenant: str, username: str, cached_only: bool = False) -> list[SavedView] | None:
    """The person's views (shared or not), by name: from Redis or one Query (0.5 RCU).

    ``cached_only``: None on a miss.

    (Shared or not: one's shared views are in one's own partition too.)
    """
    return _views(
        my_views_cache_key(tenant, username), lambda: preferences.views_mine(tenant, username), cached_only=cached_only
    )


def shared_views(*, tenant: str, cached_only: bool = False) -> list[SavedView] | None:
    """The team's shared views, by name: from Redis or one Query (0.5 RCU); ``cached_only``: None on a miss."""
    return _views(shared_views_cache_key(tenant), lambda: preferences.views_shared(tenant), cached_only=cached_only)


@dataclass(frozen=True)
class ViewMenu:
    """The header menu: the person's own views, then the ones teammates share."""

    mine: list[SavedView]
    shared: list[SavedView]  # teammates' shared views (one's own shared ones are in ``mine``)


def view_menu(*, membership: Membership, cached_only: bool = False) -> ViewMenu:
    """Both lists: two cached Queries at most. ``cached_only`` (an error page): what the cache has, else empty."""
    tenant, me = membership.tenant.slug, membership.user.get_username()
    mine = my_views(tenant=tenant, username=me, cached_only=cached_only) or []
    shared = shared_views(tenant=tenant, cached_only=cached_only) or []
    return ViewMenu(mine=mine, shared=[v for v in shared if v.author != me])  # ≤ 120 read: bounded


def view_access(*, membership: Membership, view_id: str) -> SavedView:
    """A view the person may open (their own, or a shared one), or Http404: one or two GetItems (1 RCU each)."""
    if not preferences.VIEW_ID_RE.match(view_id):
        raise Http404("No such view.")
    view = preferences.view_get(membership.tenant.slug, membership.user.get_username(), view_id)
    if view is None:
        raise Http404("No such view.")
    return view


def notify_cache_keep(tenant: str, team: TeamNotify) -> bool:
    """Cache the team's settings unless the cache holds a newer generation; True when stored.

    One Lua script (atomic in Redis): of a save's write-through and a refill that read before the save,
    whichever stores last, the newer generation stays. A Redis failure stores nothing (logged).
    """
    if optional_redis.paused():
        return False
    data = json.dumps({name: asdict(s) for name, s in team.people.items()}, separators=(",", ":"))
    try:
        keep = optional_redis.client().register_script(KEEP_NEWER)
        key = cache.make_key(notify_cache_key(tenant))
        return bool(keep(keys=[key], args=[team.generation, data, settings.PROJECT_CACHE_SECONDS]))
    except redis.exceptions.RedisError as error:
        optional_redis.failed("notify settings store", error)
        return False


def _notify_cached(tenant: str) -> dict[str, NotifySetting] | None:
    """The cached settings, or None (a miss, Redis failing, an entry that does not read)."""
    if optional_redis.paused():
        return None
    try:
        raw = optional_redis.client().hget(cache.make_key(notify_cache_key(tenant)), "d")
    except redis.exceptions.RedisError as error:
        optional_redis.failed("notify settings get", error)
        return None
    if not isinstance(raw, bytes | str):  # a miss (None)
        return None
    try:
        return {name: NotifySetting(**s) for name, s in json.loads(raw).items()}
    except (ValueError, TypeError, AttributeError):
        log.warning("cached notification settings of %s do not read; reading DynamoDB", tenant)
        return None


def team_notify_settings(tenant: str) -> dict[str, NotifySetting]:
    """username → notification setting (absent: the default), from Redis or one consistent GetItem (1 RCU).

    Consistent: a setting saved a moment ago is what the fan-out honours, never a lagging replica's.
    What was read is cached unless a save stored a newer generation meanwhile (``notify_cache_keep``).
    """
    held = _notify_cached(tenant)
    if held is not None:
        return held
    team = preferences.notify_team(tenant, consistent=True)
    notify_cache_keep(tenant, team)
    return team.people


def my_notify_setting(*, membership: Membership) -> NotifySetting:
    """The person's setting as the settings page shows it: a consistent GetItem (1 RCU), not the cache."""
    people = preferences.notify_settings(membership.tenant.slug, consistent=True)
    return people.get(membership.user.get_username(), NotifySetting())
