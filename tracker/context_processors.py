"""Template context: the user's tenants (for the switcher) and the current one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from tracker.selectors.tenants import user_memberships


def tenancy(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    return {
        "my_memberships": user_memberships(user=request.user),
        "current_membership": getattr(request, "membership", None),
    }
