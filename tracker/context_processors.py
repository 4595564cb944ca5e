"""Template context: the user's tenants (for the switcher) and the current one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from tracker.selectors.tenants import user_memberships


def tenancy(request: HttpRequest) -> dict[str, Any]:
    # A request refused before AuthenticationMiddleware ran (a disallowed Host is refused by
    # CommonMiddleware) has no ``user``: its 400 page is rendered without the switcher.
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "my_memberships": user_memberships(user=user),
        "current_membership": getattr(request, "membership", None),
    }
