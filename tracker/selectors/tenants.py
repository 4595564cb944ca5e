"""Tenants and memberships: who may see what."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count
from django.http import Http404

from tracker.models import Invitation, Membership, Role, Tenant


def membership_access(*, user: AbstractBaseUser | AnonymousUser, tenant_slug: str) -> Membership:
    """The user's membership of the tenant, or Http404 — the same answer as a missing tenant."""
    if not user.is_authenticated:
        raise Http404("No such tenant.")
    membership = (
        Membership.objects.select_related("tenant", "user").filter(user_id=user.pk, tenant__slug=tenant_slug).first()
    )
    if membership is None:
        raise Http404("No such tenant.")
    return membership


def user_memberships(*, user: AbstractBaseUser | AnonymousUser) -> list[Membership]:
    """The user's memberships with their tenants (one query; [] for anonymous users)."""
    if not user.is_authenticated:
        return []
    return list(Membership.objects.select_related("tenant").filter(user_id=user.pk))


def tenant_usernames(*, tenant: Tenant, min_role: str = "member") -> list[str]:
    """Usernames of the tenant's members with at least ``min_role`` (assignable people)."""
    allowed = {"owner": ["owner"], "member": ["owner", "member"], "viewer": ["owner", "member", "viewer"]}
    return list(
        Membership.objects.filter(tenant=tenant, role__in=allowed[min_role])
        .order_by("user__username")
        .values_list("user__username", flat=True)
    )


# ------------------------------------------------------------------- the team page


def team_members(*, tenant: Tenant) -> list[Membership]:
    """The team's memberships with their users: owners first, then members, then viewers, by username."""
    order = {Role.OWNER: 0, Role.MEMBER: 1, Role.VIEWER: 2}
    members = list(Membership.objects.select_related("user").filter(tenant=tenant))
    return sorted(members, key=lambda m: (order.get(Role(m.role), 3), m.user.get_username().lower()))


def team_membership_access(*, tenant: Tenant, membership_id: int) -> Membership:
    """One membership of this team, or Http404 — another team's membership is as missing as none."""
    membership = Membership.objects.select_related("user", "tenant").filter(pk=membership_id, tenant=tenant).first()
    if membership is None:
        raise Http404("No such member.")
    return membership


def invitations_pending(*, tenant: Tenant, now: datetime, max_age: timedelta) -> list[Invitation]:
    """The team's invitations neither used, withdrawn nor expired, newest first."""
    return list(
        Invitation.objects.select_related("created_by").filter(
            tenant=tenant, used_at__isnull=True, withdrawn_at__isnull=True, created_at__gt=now - max_age
        )
    )


def invitation_access(*, tenant: Tenant, invitation_id: int) -> Invitation:
    """One invitation of this team, or Http404."""
    invitation = Invitation.objects.filter(pk=invitation_id, tenant=tenant).first()
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


# ------------------------------------------------------------------- staff: every tenant


def staff_tenants() -> list[Tenant]:
    """Every tenant, by name, each with ``member_count`` (Django's database; no DynamoDB read)."""
    return list(Tenant.objects.annotate(member_count=Count("memberships")).order_by("name", "slug"))


def staff_tenant_access(*, slug: str) -> Tenant:
    """Any tenant by slug, for staff pages, or Http404 (Django's database; no DynamoDB read)."""
    tenant = Tenant.objects.filter(slug=slug).first()
    if tenant is None:
        raise Http404("No such tenant.")
    return tenant
