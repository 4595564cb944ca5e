"""Saving, sharing and changing one's views; one's notification settings. Each write drops the caches it changes."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.preferences import NotifySetting, SavedView, ViewEdit
from tracker.cache import invalidate
from tracker.issue_query import QueryError, parse
from tracker.models import Membership, Role
from tracker.selectors.preferences import (
    my_views,
    my_views_cache_key,
    notify_cache_keep,
    shared_views,
    shared_views_cache_key,
)

SHARE_NEEDS = Role.MEMBER  # a viewer saves views for themself; putting one in every teammate's menu needs a member


class BadViewQuery(ValueError):
    """The query a view would save is not one the issue list understands (the list's own message)."""


class ViewLimit(ValueError):
    """A person keeps at most VIEWS_MAX views in a team, a team shares at most SHARED_MAX: the message says which."""


def view_save(
    *, membership: Membership, view_id: str | None, name: str, query: str, project: str | None = None
) -> tuple[SavedView, bool]:
    """Save a view of the person's, once per form (``view_id`` = its idempotency key): (view, created now?).

    Every role may save views for itself. The query must parse as the issue list's (BadViewQuery).
    A form posted without a key (a script) gets an id of its own: saved each time it is sent.
    """
    try:
        parse(query)
    except QueryError as error:
        raise BadViewQuery(str(error)) from error
    tenant, me = membership.tenant.slug, membership.user.get_username()
    have = my_views(tenant=tenant, username=me) or []  # the header's cached list (dropped on each save)
    if len(have) >= preferences.VIEWS_MAX and all(v.id != view_id for v in have):  # a replay is answered below
        raise ViewLimit(
            f"You have {len(have)} saved views in {membership.tenant.name}, the most one person keeps: "
            "delete one you no longer use (Saved views), then save this one."
        )
    saved = preferences.view_save(
        tenant, me, view_id=view_id or new_attachment_id(), name=name, query=query, project=project
    )
    invalidate(my_views_cache_key(tenant, me))
    return saved


def view_change(*, membership: Membership, view_id: str, edit: ViewEdit) -> SavedView | None:
    """Rename, share, unshare or delete one of the person's own views, on the version the page showed."""
    shared = edit.shared
    if shared and not membership.allows(SHARE_NEEDS):
        raise PermissionDenied(f"Sharing a view with the team needs the member role in {membership.tenant.name}.")
    tenant, me = membership.tenant.slug, membership.user.get_username()
    if shared:
        team = shared_views(tenant=tenant) or []  # cached, dropped on each share
        if len(team) >= preferences.SHARED_MAX and all(v.id != view_id for v in team):
            raise ViewLimit(
                f"{membership.tenant.name} shares {len(team)} views already, the most a team shares: "
                "ask a teammate to stop sharing one (or an owner to take one out of the menu), then share this one."
            )
    try:
        return preferences.view_change(tenant, me, view_id, edit)
    finally:
        invalidate(my_views_cache_key(tenant, me), shared_views_cache_key(tenant))


def view_unshare_team(*, membership: Membership, view_id: str, expected_version: int) -> SavedView:
    """An owner takes a teammate's shared view out of the team's menu (the author keeps it); the copy taken.

    ChangedSinceRead (409, nothing changed) when the view changed or stopped being shared meanwhile.
    """
    if not membership.allows(Role.OWNER):
        raise PermissionDenied(f"Only an owner of {membership.tenant.name} takes a teammate's view out of the menu.")
    tenant = membership.tenant.slug
    try:
        return preferences.view_unshare_team(tenant, view_id, expected_version=expected_version)
    finally:
        invalidate(shared_views_cache_key(tenant))


def views_of_leaver_unshare(*, tenant: str, username: str) -> int:
    """A person left the team: their shared views leave its menu (they keep them, unshared); how many.

    One consistent Query of the shared list (≤ 120 views, 1 RCU per 4 KB; filtered by author: bounded)
    and ``preferences.view_unshare_team`` for each of theirs (2 RCU + 4 WCU). A view changed meanwhile
    is read again and tried once more; an owner can take out whatever is left.
    """
    taken = 0
    for _attempt in range(2):
        theirs = [v for v in preferences.views_shared(tenant, consistent=True) if v.author == username]
        for view in theirs:
            try:
                preferences.view_unshare_team(tenant, view.id, expected_version=view.version)
                taken += 1
            except ChangedSinceRead:
                continue
        if not theirs:
            break
    invalidate(shared_views_cache_key(tenant), my_views_cache_key(tenant, username))
    return taken


def notify_set(*, membership: Membership, level: str, email: bool, expected_version: int) -> NotifySetting:
    """The person's notification level and e-mail choice in this team, on the version the page showed.

    What the write returned (the team's whole settings item) is cached at once, so the next fan-out
    honours it; a refill that read the settings before this write cannot store them over it.
    """
    tenant, me = membership.tenant.slug, membership.user.get_username()
    team = preferences.notify_set(tenant, me, level=level, email=email, expected_version=expected_version)
    notify_cache_keep(tenant, team)
    return team.people[me]
