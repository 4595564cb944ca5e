"""Template context: the user's tenants (for the switcher) and the current one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def tenancy(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    memberships = list(request.user.memberships.select_related("tenant"))  # type: ignore[union-attr]
    return {
        "my_memberships": memberships,
        "current_membership": getattr(request, "membership", None),
    }
