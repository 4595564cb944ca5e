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
    """Superusers and holders of tracker.change_tenant: rename teams, move orders, start read-only jobs.

    Not raw item edits nor jobs that write or delete data: those have permissions of their own (below).
    """
    return _has(user, "tracker.change_tenant")


EDIT_RAW_ITEMS = "audit.edit_raw_items"
RUN_DESTRUCTIVE_JOBS = "audit.run_destructive_jobs"
NO_RAW_EDITS = f"Editing or deleting raw DynamoDB items needs superuser status or the {EDIT_RAW_ITEMS} permission."
NO_DESTRUCTIVE_JOBS = (
    f"Jobs that write or delete data, and offboarding, need superuser status or the {RUN_DESTRUCTIVE_JOBS} permission."
)


def staff_can_edit_raw_items(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and holders of audit.edit_raw_items may PutItem/DeleteItem any item in the item browser."""
    return _has(user, EDIT_RAW_ITEMS)


def staff_can_run_destructive_jobs(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and holders of audit.run_destructive_jobs may start jobs that write or delete data, and offboard."""
    return _has(user, RUN_DESTRUCTIVE_JOBS)


def _has(user: AbstractBaseUser | AnonymousUser, permission: str) -> bool:
    if not isinstance(user, PermissionsMixin) or not user.is_active:
        return False
    return user.is_superuser or user.has_perm(permission)
