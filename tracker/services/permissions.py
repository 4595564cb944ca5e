"""Role checks shared by the services (tenants' members) and the admin (staff who may change data)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, PermissionsMixin
from django.core.exceptions import PermissionDenied

from tracker.models import Membership


def require_role(membership: Membership, role: str) -> None:
    """PermissionDenied (403) unless the membership's role is at least ``role``."""
    if not membership.allows(role):
        raise PermissionDenied(f"This needs the {role} role in {membership.tenant.name}.")


def staff_can_view(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and holders of tracker.view_tenant (or change_tenant) may see DynamoDB data in the admin."""
    if not isinstance(user, PermissionsMixin) or not user.is_active:
        return False
    return user.is_superuser or user.has_perm("tracker.view_tenant") or user.has_perm("tracker.change_tenant")


def staff_can_change(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and holders of tracker.change_tenant may change DynamoDB data; other staff read."""
    if not isinstance(user, PermissionsMixin) or not user.is_active:
        return False
    return user.is_superuser or user.has_perm("tracker.change_tenant")
