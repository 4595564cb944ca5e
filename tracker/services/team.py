"""Team writes: owners change roles, remove members, and invite new people by link.

People who have an account are invited by name instead (tracker.services.personal_invitations).

Two rules hold whatever the order of concurrent requests: a team always keeps at least one owner
(checked inside a transaction that locks the team's owner rows), and an invitation link is used
at most once (a conditional UPDATE claims it; the new account and membership roll back with it).
An invitation is worth its creator's right and its team's life: a link whose creator is no longer
an owner of the team, or whose team is being (or was) offboarded, is refused — when it is opened,
and again when it is accepted, inside the transaction that creates the membership, after locking
the creator's owner membership (a role change or removal locks it too, and withdraws the creator's
invitations in its own transaction). Offboarding locks the team's row, retires the slug, withdraws
and deletes the team's invitations and removes the memberships in one transaction; an accept locks
the team's row first too: one that got there first commits before offboarding goes on, so its
membership is among those removed; one that comes later sees the retired slug and is refused.
Every write is the acting owner's own team: the views look targets up through
``team_membership_access`` / ``invitation_access``, which answer 404 for another team's rows.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, User
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ddbmodels.core.errors import AWS_ERRORS, Unavailable
from tracker.models import Invitation, Membership, RetiredSlug, Role, Tenant
from tracker.services.permissions import require_role
from tracker.services.preferences import views_of_leaver_unshare

log = logging.getLogger(__name__)
LEAVER_VIEWS_ERRORS: tuple[type[Exception], ...] = (*AWS_ERRORS, Unavailable)  # DynamoDB failing: logged
INVITATION_MAX_AGE = timedelta(days=7)
_SALT = "tracker.team.invitation"
LAST_OWNER = "{team} needs at least one owner: make someone else an owner first."
CLOSED = "{team} has closed its space on Tracker: nobody can join it any more."


class InvitationUnusable(Exception):
    """The link is not valid (any more): ``reason`` says why in the page's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ------------------------------------------------------------------- members


def team_role_change(*, membership: Membership, target: Membership, role: str) -> Membership:
    """Set ``target``'s role; ValidationError if that would leave the team without an owner."""
    require_role(membership, Role.OWNER)
    with transaction.atomic():
        current = _lock_and_check_owners(target, leaving=role != Role.OWNER)
        current.role = role
        current.save(update_fields=["role"])
        return current


def team_member_remove(*, membership: Membership, target: Membership) -> None:
    """Take ``target`` out of the team; ValidationError if it is the last owner.

    Then their shared views leave the team's Views menu (they keep them, unshared). Should DynamoDB fail
    there, the person is out all the same (logged): an owner takes what is left out of the menu.
    """
    require_role(membership, Role.OWNER)
    with transaction.atomic():
        current = _lock_and_check_owners(target, leaving=True)
        current.delete()
    try:
        views_of_leaver_unshare(tenant=current.tenant.slug, username=current.user.get_username())
    except LEAVER_VIEWS_ERRORS:
        log.warning("%s left %s; their shared views stay in its menu", current.user.get_username(), current.tenant.slug)


def _lock_and_check_owners(target: Membership, *, leaving: bool) -> Membership:
    """Lock the team's owner rows (and the target's), refuse if the last owner would go; the target now."""
    owners = list(Membership.objects.select_for_update().filter(tenant_id=target.tenant_id, role=Role.OWNER))
    current = Membership.objects.select_for_update().select_related("tenant", "user").filter(pk=target.pk).first()
    if current is None:
        raise ValidationError(f"{target.user.get_username()} is no longer in the team.")
    if leaving and current.role == Role.OWNER and len(owners) <= 1:
        raise ValidationError(LAST_OWNER.format(team=current.tenant.name))
    return current


# ------------------------------------------------------------------- invitations


def invitation_create(*, membership: Membership, role: str, email: str = "") -> tuple[Invitation, str]:
    """A new one-use invitation into the owner's team, and its token (shown once, never stored).

    ValidationError (nothing made) once the team's offboarding began: checked under the team's row,
    which offboarding locks while it deletes the team's invitations.
    """
    require_role(membership, Role.OWNER)
    tenant = membership.tenant
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
        if RetiredSlug.objects.filter(slug=tenant.slug).exists():
            raise ValidationError(CLOSED.format(team=tenant.name))
        invitation = Invitation.objects.create(tenant=tenant, role=role, email=email, created_by=membership.user)
    return invitation, signing.TimestampSigner(salt=_SALT).sign(invitation.key.hex)


def invitation_withdraw(*, membership: Membership, invitation: Invitation) -> None:
    """Take an unused invitation back: its link stops working."""
    require_role(membership, Role.OWNER)
    Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True).update(withdrawn_at=timezone.now())


def invitation_open(*, tenant_slug: str, token: str) -> Invitation:
    """The invitation a link names, if it may still be used; InvitationUnusable (with the reason) if not."""
    try:
        key = signing.TimestampSigner(salt=_SALT).unsign(token, max_age=INVITATION_MAX_AGE)
    except signing.SignatureExpired:
        raise InvitationUnusable("This invitation link has expired. Ask the owner who sent it for a new one.") from None
    except signing.BadSignature:
        raise InvitationUnusable("This invitation link is not valid. Check that it was copied whole.") from None
    try:
        uuid = UUID(hex=key)
    except ValueError:
        raise InvitationUnusable("This invitation link is not valid. Check that it was copied whole.") from None
    invitation = Invitation.objects.select_related("tenant").filter(key=uuid, tenant__slug=tenant_slug).first()
    if invitation is None and RetiredSlug.objects.filter(slug=tenant_slug).exists():  # offboarding deleted it
        name = Tenant.objects.filter(slug=tenant_slug).values_list("name", flat=True).first()
        raise InvitationUnusable(CLOSED.format(team=name or "This team"))
    if invitation is None:
        raise InvitationUnusable("This invitation link is not valid. Check that it was copied whole.")
    _refuse_closed(invitation)  # first: a closed team is the reason, whatever became of the invitation
    if invitation.withdrawn_at is not None:
        raise InvitationUnusable("This invitation was withdrawn. Ask an owner of the team for a new one.")
    if invitation.used_at is not None:
        raise InvitationUnusable("This invitation link was already used. Each link lets one person join.")
    _refuse_without_right(invitation, lock=False)
    return invitation


def _refuse_closed(invitation: Invitation) -> Tenant:
    """The invitation's team, unless its slug is retired (offboarding began or ended): InvitationUnusable."""
    team = invitation.tenant
    if RetiredSlug.objects.filter(slug=team.slug).exists():
        raise InvitationUnusable(CLOSED.format(team=team.name))
    return team


def _refuse_without_right(invitation: Invitation, *, lock: bool) -> None:
    """InvitationUnusable when the team is closing or closed, or the creator is no longer its owner.

    ``lock``: inside the accepting transaction, lock the team's row first (offboarding locks it before
    retiring the slug, so the slug is checked under it), then the creator's owner membership (a role
    change or removal locks it too): whichever comes second sees what the first did.
    """
    if lock and Tenant.objects.select_for_update().filter(pk=invitation.tenant_id).first() is None:
        raise InvitationUnusable(CLOSED.format(team=invitation.tenant.name))  # the row was deleted meanwhile
    team = _refuse_closed(invitation)
    creator = invitation.created_by_id
    creators = Membership.objects.filter(
        tenant_id=invitation.tenant_id, user_id=creator or 0, role=Role.OWNER, user__is_active=True
    )
    if lock:
        creators = creators.select_for_update(of=("self",))
    if creator is None or creators.first() is None:
        raise InvitationUnusable(
            f"The person who sent this invitation is no longer an owner of {team.name}, so it no longer works. "
            "Ask an owner of the team for a new one."
        )


def invitation_accept(*, invitation: Invitation, user: User) -> Membership:
    """A signed-in person joins the team with the invitation's role; the link is used up.

    ValidationError when the person is already in the team (the link stays usable).
    """
    with transaction.atomic():
        _refuse_without_right(invitation, lock=True)
        if Membership.objects.filter(tenant_id=invitation.tenant_id, user_id=user.pk).exists():
            raise ValidationError(
                f"You are already in {invitation.tenant.name}; this link stays free for someone else."
            )
        _claim(invitation, user)
        return Membership.objects.create(user=user, tenant=invitation.tenant, role=invitation.role)


def invitation_sign_up(*, invitation: Invitation, username: str, email: str, password: str) -> User:
    """A new account and its membership from an invitation, in one transaction with using up the link."""
    with transaction.atomic():
        _refuse_without_right(invitation, lock=True)
        user = get_user_model().objects.create_user(username, email=email, password=password)
        _claim(invitation, user)
        Membership.objects.create(user=user, tenant=invitation.tenant, role=invitation.role)
    return user


def _claim(invitation: Invitation, user: AbstractBaseUser) -> None:
    """Mark the invitation used by ``user`` unless someone used or withdrew it first (then InvitationUnusable)."""
    claimed = Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True, withdrawn_at__isnull=True).update(
        used_at=timezone.now(), used_by=user
    )
    if not claimed:
        if Invitation.objects.filter(pk=invitation.pk, withdrawn_at__isnull=False).exists():
            raise InvitationUnusable("This invitation was withdrawn. Ask an owner of the team for a new one.")
        raise InvitationUnusable("This invitation link was already used. Each link lets one person join.")
