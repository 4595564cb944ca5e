"""Saved views and notification settings as pages and the fan-out see them, cached in Redis (cache-aside).

The header menu shows a person's views and the team's shared ones: two Queries (0.5 RCU each), each
cached — the shared list per team (``ddb:views:<team>``), a person's list per person
(``ddb:views:<team>#<name>``) — and dropped by every write that changes them (``services.preferences``).
The notification settings are one GetItem a fan-out (0.5 RCU), cached per team (``notify-prefs:<team>``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime

from django.conf import settings
from django.http import Http404

from ddbmodels import preferences
from ddbmodels.preferences import NotifySetting, SavedView
from tracker.cache import cached
from tracker.models import Membership

log = logging.getLogger(__name__)
VIEWS_CACHE_SECONDS = 300


def shared_views_cache_key(tenant: str) -> str:
    return f"ddb:views:{tenant}"


def my_views_cache_key(tenant: str, username: str) -> str:
    return f"ddb:views:{tenant}#{username}"


def notify_cache_key(tenant: str) -> str:
    return f"notify-prefs:{tenant}"


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


def team_notify_settings(tenant: str) -> dict[str, NotifySetting]:
    """username → notification setting (absent: the default), from Redis or one GetItem (0.5 RCU)."""
    return cached(
        notify_cache_key(tenant),
        settings.PROJECT_CACHE_SECONDS,
        lambda: preferences.notify_settings(tenant),
        dump=lambda people: {name: asdict(s) for name, s in people.items()},
        restore=lambda raw: {name: NotifySetting(**s) for name, s in raw.items()},
    )


def my_notify_setting(*, membership: Membership) -> NotifySetting:
    """The person's setting as the settings page shows it: a consistent GetItem (1 RCU), not the cache."""
    people = preferences.notify_settings(membership.tenant.slug, consistent=True)
    return people.get(membership.user.get_username(), NotifySetting())
