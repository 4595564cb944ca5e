"""Saving, sharing and changing one's views; one's notification settings. Each write drops the caches it changes."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from ddbmodels import preferences
from ddbmodels.attachments import new_attachment_id
from ddbmodels.preferences import NotifySetting, SavedView
from tracker.cache import invalidate
from tracker.issue_query import QueryError, parse
from tracker.models import Membership, Role
from tracker.selectors.preferences import my_views_cache_key, notify_cache_key, shared_views_cache_key

SHARE_NEEDS = Role.MEMBER  # a viewer saves views for themself; putting one in every teammate's menu needs a member


class BadViewQuery(ValueError):
    """The query a view would save is not one the issue list understands (the list's own message)."""


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
    saved = preferences.view_save(
        tenant, me, view_id=view_id or new_attachment_id(), name=name, query=query, project=project
    )
    invalidate(my_views_cache_key(tenant, me))
    return saved


def view_change(
    *,
    membership: Membership,
    view_id: str,
    expected_version: int,
    name: str | None = None,
    shared: bool | None = None,
    delete: bool = False,
) -> SavedView | None:
    """Rename, share, unshare or delete one of the person's own views, on the version the page showed."""
    if shared and not membership.allows(SHARE_NEEDS):
        raise PermissionDenied(f"Sharing a view with the team needs the member role in {membership.tenant.name}.")
    tenant, me = membership.tenant.slug, membership.user.get_username()
    try:
        return preferences.view_change(
            tenant, me, view_id, expected_version=expected_version, name=name, shared=shared, delete=delete
        )
    finally:
        invalidate(my_views_cache_key(tenant, me), shared_views_cache_key(tenant))


def notify_set(*, membership: Membership, level: str, email: bool, expected_version: int) -> NotifySetting:
    """The person's notification level and e-mail choice in this team, on the version the page showed."""
    tenant = membership.tenant.slug
    try:
        return preferences.notify_set(
            tenant, membership.user.get_username(), level=level, email=email, expected_version=expected_version
        )
    finally:
        invalidate(notify_cache_key(tenant))
