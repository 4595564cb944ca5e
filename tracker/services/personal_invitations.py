"""Owners invite a person by username or e-mail; the person accepts or declines; only accepting makes a membership.

Whatever the owner types, the answer is the same (``ASKED``), so the team page tells nobody who
has an account. A request reaches an account only by its exact username or its confirmed e-mail
address, and only when that account is not in the team and holds no open invitation of it;
the account is told once (on its Invitations page, and one e-mail to its confirmed address, sent
by a task queued for every request so that the answer takes as long whoever it reached).
A request is open for INVITATION_MAX_AGE; it stops when the person answers or an owner withdraws
it, and accepting also needs the team to exist still and its inviter to be an owner still.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from tracker import enqueue
from tracker.models import Membership, PersonalInvitation, RetiredSlug, Role, Tenant
from tracker.services.addresses import address_confirmed, confirmed_users
from tracker.services.permissions import require_role
from tracker.services.team import INVITATION_MAX_AGE

log = logging.getLogger(__name__)

ASKED_PER_HOUR = 20  # requests a team may make in an hour: each may e-mail someone, so owners cannot mail-bomb
ASKED_SHOWN = 50  # the owners' list shows the newest this many open requests
TOO_MANY = "{team} asked {count} people to join in the last hour; ask again later."

ASKED = (
    "If that person has an account with a confirmed e-mail address, they have been invited to join "
    "{team} as {role}. They join only when they accept."
)


def _role_words(role: str) -> str:
    return str(Role(role).label).lower()


def asked_message(*, membership: Membership, role: str) -> str:
    """The one answer to every request, whoever it named."""
    return ASKED.format(team=membership.tenant.name, role=_role_words(role))


def _open(now: datetime) -> dict[str, object]:
    return {
        "accepted_at__isnull": True,
        "declined_at__isnull": True,
        "withdrawn_at__isnull": True,
        "created_at__gt": now - INVITATION_MAX_AGE,
    }


def _open_to(user_id: int, now: datetime) -> QuerySet[PersonalInvitation]:
    """The open invitations of an account, from teams still open (offboarding deletes a team's requests in the
    transaction that retires its slug; this also hides one made alongside it, or before that was so)."""
    retired = RetiredSlug.objects.values("slug")
    return PersonalInvitation.objects.filter(invitee_id=user_id, **_open(now)).exclude(tenant__slug__in=retired)


def _account_for(who: str) -> User | None:
    """The one active account with exactly this username, else the one whose confirmed address it is."""
    user = get_user_model().objects.filter(username=who, is_active=True).first()
    if user is not None:
        return user
    if "@" in who:
        found = confirmed_users(email=who)
        return found[0] if found else None
    return None


def personal_invitation_create(
    *, membership: Membership, who: str, role: str, request_key: str | None = None
) -> PersonalInvitation | None:
    """Record the owner's request and invite the account it reaches, if any; None when nothing changed.

    ValidationError (whatever the name) past ASKED_PER_HOUR requests of the team in the last hour.

    Nothing changes when the same form was submitted before (``request_key``), the same words are
    already asked and open, or the team is being offboarded. Otherwise the request is recorded
    whatever it reached (the owners' list shows what they typed, so it tells them nothing about who
    exists or is in the team); the account is invited (and e-mailed once) only when it is not in the
    team and has no open invitation of it.
    """
    require_role(membership, Role.OWNER)
    who = who.strip()
    now = timezone.now()
    if request_key and PersonalInvitation.objects.filter(request_key=request_key).exists():
        return None
    tenant = membership.tenant
    if (
        PersonalInvitation.objects.filter(tenant=tenant, created_at__gt=now - timedelta(hours=1)).count()
        >= ASKED_PER_HOUR
    ):
        raise ValidationError(TOO_MANY.format(team=tenant.name, count=ASKED_PER_HOUR))  # the same for any name
    if PersonalInvitation.objects.filter(tenant=tenant, asked_for__iexact=who, **_open(now)).exists():
        return None
    user = _account_for(who)
    if user is not None and Membership.objects.filter(tenant=tenant, user=user).exists():
        user = None  # in the team already: recorded all the same, so the owners' list looks as for a stranger
    if user is not None and PersonalInvitation.objects.filter(tenant=tenant, invitee=user, **_open(now)).exists():
        user = None  # already invited: the owners' list shows this request too, the person hears once
    try:
        with transaction.atomic():
            # Under the team's row, as offboarding deletes the team's requests: none is recorded once it began.
            Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
            if RetiredSlug.objects.filter(slug=tenant.slug).exists():
                return None
            invitation = PersonalInvitation.objects.create(
                tenant=tenant,
                role=role,
                asked_for=who,
                invitee=user,
                created_by=membership.user,
                request_key=request_key,
            )
    except IntegrityError:  # the same form, submitted twice at once
        return None
    _queue_mail(invitation)
    return invitation


def _queue_mail(invitation: PersonalInvitation) -> None:
    """Queue the e-mail task for every request, whomever it reached: the answer takes as long either way."""
    send = enqueue.task(enqueue.SEND_INVITATION_EMAIL)
    try:
        send.apply_async(kwargs={"invitation_id": invitation.pk}, retry=False)
    except enqueue.BROKER_ERRORS:  # the invitation is on the person's Invitations page all the same
        log.warning("could not queue the e-mail of invitation %s", invitation.pk, exc_info=True)


def personal_invitation_mail(*, invitation_id: int) -> bool:
    """One e-mail to the invitee's confirmed address, if the request reached one and is still open; sent?"""
    invitation = (
        PersonalInvitation.objects.select_related("tenant", "invitee", "created_by")
        .filter(pk=invitation_id, **_open(timezone.now()))
        .exclude(tenant__slug__in=RetiredSlug.objects.values("slug"))
        .first()
    )
    user = invitation.invitee if invitation is not None else None
    address = address_confirmed(user=user) if user is not None else ""
    if invitation is None or user is None or not address:  # nobody, or reached by username: the page tells them
        return False
    link = f"{settings.SITE_URL.rstrip('/')}{reverse('invitations')}"
    inviter = invitation.created_by.get_username() if invitation.created_by else "An owner"
    body = (
        f"{inviter} invited you to join {invitation.tenant.name} on Tracker as {_role_words(invitation.role)}.\n\n"
        f"Accept or decline it on your Invitations page (sign in first):\n\n{link}\n\n"
        f"You join only if you accept. The invitation is open for {INVITATION_MAX_AGE.days} days.\n"
    )
    try:
        send_mail(f"Invitation to join {invitation.tenant.name} on Tracker", body, None, [address])
    except Exception:  # noqa: BLE001  (the invitation is on the person's Invitations page all the same)
        log.warning("could not e-mail invitation %s", invitation.pk, exc_info=True)
        return False
    return True


def personal_invitations_asked(*, membership: Membership) -> list[PersonalInvitation]:
    """The team's newest ASKED_SHOWN open requests as the owners made them (what was typed, never whom it reached)."""
    now = timezone.now()
    return list(
        PersonalInvitation.objects.select_related("created_by").filter(
            tenant=membership.tenant,
            withdrawn_at__isnull=True,
            accepted_at__isnull=True,
            created_at__gt=now - INVITATION_MAX_AGE,
        )[:ASKED_SHOWN]
    )


def personal_invitations_received(*, user: User) -> list[PersonalInvitation]:
    """The account's open invitations from teams still open, newest first (an index on invitee, created_at)."""
    if not user.is_authenticated:
        return []
    return list(_open_to(user.pk, timezone.now()).select_related("tenant", "created_by"))


def personal_invitation_received_access(*, user: User, invitation_id: int) -> PersonalInvitation | None:
    """One open invitation of this account, or None (another's, answered, withdrawn, expired, or its team closed)."""
    return _open_to(user.pk, timezone.now()).select_related("tenant", "created_by").filter(pk=invitation_id).first()


def personal_invitation_accept(*, invitation: PersonalInvitation, user: User) -> Membership:
    """The person joins with the invitation's role; ValidationError (nothing changed) when it no longer may.

    Inside one transaction that locks the team's row (offboarding's first transaction locks it too,
    and retires the slug, deletes the requests and removes the memberships under it:
    tracker.services.offboarding.offboarding_begin) and then the inviter's owner membership (a role
    change or removal locks it), so neither a demotion nor an offboarding racing the accept lets
    someone in after it.
    """
    with transaction.atomic():
        team = Tenant.objects.select_for_update().filter(pk=invitation.tenant_id).first()
        if team is None or RetiredSlug.objects.filter(slug=team.slug).exists():
            raise ValidationError(
                f"{invitation.tenant.name} has closed its space on Tracker: nobody joins it any more."
            )
        inviter = (
            Membership.objects.select_for_update()
            .filter(tenant=team, user_id=invitation.created_by_id or 0, role=Role.OWNER, user__is_active=True)
            .first()
        )
        if inviter is None:
            raise ValidationError(
                f"Whoever invited you is no longer an owner of {team.name}, so the invitation no longer works. "
                "Ask an owner of the team to invite you again."
            )
        claimed = PersonalInvitation.objects.filter(
            pk=invitation.pk, invitee_id=user.pk, **_open(timezone.now())
        ).update(accepted_at=timezone.now())
        if not claimed:
            raise ValidationError("This invitation is no longer open.")
        try:
            with transaction.atomic():
                return Membership.objects.create(user=user, tenant=team, role=invitation.role)
        except IntegrityError:
            raise ValidationError(f"You are already in {team.name}.") from None


def personal_invitation_decline(*, invitation: PersonalInvitation, user: User) -> None:
    """The person says no: the invitation closes; nothing else changes."""
    PersonalInvitation.objects.filter(pk=invitation.pk, invitee_id=user.pk, **_open(timezone.now())).update(
        declined_at=timezone.now()
    )


def personal_invitation_withdraw(*, membership: Membership, invitation_id: int) -> bool:
    """An owner takes back an open request of their team; False when there is none (another team's: a 404)."""
    require_role(membership, Role.OWNER)
    return bool(
        PersonalInvitation.objects.filter(
            pk=invitation_id, tenant=membership.tenant, accepted_at__isnull=True, withdrawn_at__isnull=True
        ).update(withdrawn_at=timezone.now())
    )


def personal_invitations_waiting(*, user: User) -> int:
    """How many open invitations the account has from teams still open (one COUNT on the invitee index)."""
    return _open_to(user.pk, timezone.now()).count()
