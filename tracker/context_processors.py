"""Template context: the user's tenants (for the switcher) and the current one."""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from tracker.selectors.tenants import user_memberships


def tenancy(request: HttpRequest) -> dict[str, Any]:
    # A request refused before AuthenticationMiddleware ran (a disallowed Host is refused by
    # CommonMiddleware) has no ``user``: its 400 page is rendered without the switcher.
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from tracker.services.personal_invitations import personal_invitations_waiting

    return {
        "my_memberships": user_memberships(user=user),
        "current_membership": getattr(request, "membership", None),
        "invitations_waiting": personal_invitations_waiting(user=user),
    }


def inbox(request: HttpRequest) -> dict[str, Any]:
    """The header's Inbox link and unread count: a cache hit or one GetItem (0.5 RCU); never fails the page.

    Only on a team's pages (where the view resolved a membership); a DynamoDB or Redis error
    shows the link without a count. An error page (rendered while its exception is handled: a
    DynamoDB outage, a bad request) shows only a cached count and asks DynamoDB nothing more.
    """
    from tracker.selectors.inbox import unread_count  # keeps this module's imports light

    membership = getattr(request, "membership", None)
    if membership is None:
        return {}
    slug = membership.tenant.slug
    answering_an_error = sys.exc_info()[1] is not None
    return {
        "inbox_url": reverse("inbox", kwargs={"tenant": slug}),
        "inbox_unread": unread_count(
            tenant=slug, username=membership.user.get_username(), cached_only=answering_an_error
        ),
    }


def saved_views(request: HttpRequest) -> dict[str, Any]:
    """The header's Views menu: the person's views and the team's shared ones, two cached Queries at most.

    Only on a team's pages; a DynamoDB or Redis failure shows the menu without views rather than
    failing the page, and an error page shows only what the cache holds (asks DynamoDB nothing more).
    """
    from tracker.selectors.preferences import view_menu  # keeps this module's imports light

    membership = getattr(request, "membership", None)
    if membership is None:
        return {}
    try:
        menu = view_menu(membership=membership, cached_only=sys.exc_info()[1] is not None)
    except Exception:  # noqa: BLE001  (the header shows no views rather than failing the page)
        logging.getLogger(__name__).warning("could not read the views of %s", membership.tenant.slug, exc_info=True)
        return {"views_menu": None}
    return {"views_menu": menu}
