"""Role checks shared by the services."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from tracker.models import Membership


def require_role(membership: Membership, role: str) -> None:
    """PermissionDenied (403) unless the membership's role is at least ``role``."""
    if not membership.allows(role):
        raise PermissionDenied(f"This needs the {role} role in {membership.tenant.name}.")
