"""E-mail addresses, confirmed by a signed, expiring, one-use link before anything is matched or sent to them.

An account's address is confirmed while ``ConfirmedEmail`` holds it for that account (one account
per address, so whoever signs up first with someone else's address never gets what is meant for
it). Sign-up and a change of address send the link; following it, signed in as that account,
confirms. The link's token signs the account, the address and the address confirmed when it was
made: once it is used (or another link of the same moment is), the account's confirmed address
changes and the token no longer checks out.

The link is ``/accounts/email/confirm/#<token>``: the token is in the fragment, which no server,
access log or Referer sees (the page's static script posts it). When an account's address changes
(the account page, the admin, a script: any ``save()`` of the User), ``forget_replaced_address``
deletes its confirmation of the old one, so the old address is free for whoever owns it.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from tracker.models import ConfirmedEmail

log = logging.getLogger(__name__)

CONFIRM_MAX_AGE = timedelta(days=3)
LINKS_PER_HOUR = 5  # confirmation e-mails an account may have sent in an hour (each names an address it chose)
_SALT = "tracker.addresses.confirm"


class ConfirmationUnusable(Exception):
    """The confirmation link cannot be used: ``reason`` says why in the page's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def address_confirmed(*, user: AbstractBaseUser) -> str:
    """The account's e-mail address if it is confirmed, else "" (one query)."""
    email = str(getattr(user, "email", "") or "").strip().lower()
    if not email:
        return ""
    return email if ConfirmedEmail.objects.filter(user_id=user.pk, email=email).exists() else ""


def confirmed_users(*, email: str) -> list[User]:
    """The active account whose confirmed address is ``email`` (at most one), as a list."""
    row = ConfirmedEmail.objects.select_related("user").filter(email=email.strip().lower()).first()
    if row is None or not row.user.is_active or row.user.email.strip().lower() != row.email:
        return []
    return [row.user]


def confirmation_token(*, user: User) -> str:
    """A signed, timestamped token for the account's current address (checked by ``address_confirm``)."""
    current = ConfirmedEmail.objects.filter(user_id=user.pk).values_list("email", flat=True).first() or ""
    payload = {"u": user.pk, "e": user.email.strip().lower(), "c": current}
    return signing.TimestampSigner(salt=_SALT).sign_object(payload)


def confirmation_send(*, user: User) -> bool:
    """E-mail the account's address a confirmation link; False (nothing sent) when there is nothing to confirm.

    At most LINKS_PER_HOUR an account an hour (the cache counts them; a cache that is away does not stop it).
    """
    email = user.email.strip()
    if not email or address_confirmed(user=user):
        return False
    if not _within_hourly_limit(user):
        log.info("confirmation e-mail to %s not sent: over %s an hour", user.get_username(), LINKS_PER_HOUR)
        return False
    link = f"{settings.SITE_URL.rstrip('/')}{reverse('address_confirm')}#{confirmation_token(user=user)}"
    hours = int(CONFIRM_MAX_AGE.total_seconds() // 3600)
    body = (
        f"Hello {user.get_username()},\n\n"
        f"Confirm that {email} is your e-mail address on Tracker by opening this link (signed in as "
        f"{user.get_username()}) within {hours} hours:\n\n{link}\n\n"
        "Until then, Tracker sends nothing to this address, and owners of teams cannot find you by it.\n"
        "If you did not ask for this, ignore this message.\n"
    )
    try:
        send_mail("Confirm your e-mail address for Tracker", body, None, [email])
    except Exception:  # noqa: BLE001  (the account page offers to send it again)
        log.warning("could not send the confirmation e-mail to %s", user.get_username(), exc_info=True)
        return False
    return True


def _within_hourly_limit(user: User) -> bool:
    key = f"address-confirm-sent:{user.pk}"
    try:
        cache.add(key, 0, timeout=3600)
        return int(cache.incr(key)) <= LINKS_PER_HOUR
    except Exception:  # noqa: BLE001  (the cache is a guard, not a dependency)
        return True


def address_confirm(*, user: User, token: str) -> str:
    """Confirm the address the token names for ``user``; the address, or ConfirmationUnusable (nothing changed)."""
    try:
        payload: dict[str, Any] = signing.TimestampSigner(salt=_SALT).unsign_object(token, max_age=CONFIRM_MAX_AGE)
    except signing.SignatureExpired:
        raise ConfirmationUnusable("This confirmation link has expired. Send yourself a new one below.") from None
    except (signing.BadSignature, ValueError):
        raise ConfirmationUnusable("This confirmation link is not valid. Check that it was copied whole.") from None
    if payload.get("u") != user.pk:
        raise ConfirmationUnusable(
            "This confirmation link is for another account. Sign in as the account it was sent for."
        )
    email = user.email.strip().lower()
    if payload.get("e") != email:
        raise ConfirmationUnusable("This link was for an address your account no longer has.")
    with transaction.atomic():
        current = (
            ConfirmedEmail.objects.select_for_update().filter(user_id=user.pk).values_list("email", flat=True).first()
        )
        if (current or "") != payload.get("c"):
            raise ConfirmationUnusable("This confirmation link was already used.")
        held = ConfirmedEmail.objects.select_for_update().select_related("user").filter(email=email)
        for row in held.exclude(user_id=user.pk):
            if row.user.email.strip().lower() == email:
                raise ConfirmationUnusable("This address is already confirmed for another account.")
            row.delete()  # that account's address changed without a save() (a bulk update): it holds it no more
        try:
            with transaction.atomic():
                ConfirmedEmail.objects.update_or_create(
                    user_id=user.pk, defaults={"email": email, "confirmed_at": timezone.now()}
                )
        except IntegrityError:
            raise ConfirmationUnusable("This address is already confirmed for another account.") from None
    return email


def address_change(*, user: User, email: str) -> bool:
    """Give the account a new address (unconfirmed until its link is followed) and send the link; sent?"""
    user.email = email.strip()
    user.save(update_fields=["email"])
    return confirmation_send(user=user)


def forget_replaced_address(sender: type, instance: User, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of User: the account's confirmation of an address it no longer has is deleted.

    Whatever changed the address (the account page, the admin, a script), the old address stops
    counting for this account and another account can confirm it. One DELETE per save that may
    have changed the address; a save naming other fields only (``last_login`` at each sign-in) costs nothing.
    """
    update_fields = kwargs.get("update_fields")
    if created or (update_fields is not None and "email" not in update_fields):
        return
    email = str(instance.email or "").strip().lower()
    ConfirmedEmail.objects.filter(user_id=instance.pk).exclude(email=email).delete()


def address_mark_confirmed(*, user: User) -> None:
    """Record the account's current address as confirmed without a link (the demo data; staff tools)."""
    email = user.email.strip().lower()
    if email:
        ConfirmedEmail.objects.update_or_create(
            user_id=user.pk, defaults={"email": email, "confirmed_at": timezone.now()}
        )
