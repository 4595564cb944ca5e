"""API tokens: a person's credential for one team, made, checked and revoked here (no DynamoDB: 0 RCU, 0 WCU).

A token is ``trk_`` + 30 random base62 characters + the 6-character base62 CRC32 of those 30 (GitHub's scheme:
secret scanners recognise the prefix and the checksum). It is shown once; only its sha256 is stored. Checking a
token reads the format and the checksum before any SQL (a typo or junk costs no query), then one query gives the
token, its membership (role), its team and its person; ``last_used_at`` is written at most once a minute a token.

Scopes: ``read``, ``write`` (what a member may), ``admin`` (what an owner may: webhooks). A token's scope is at most
its person's role when it is made; the role is checked again on every call (``tracker.api.access.require_scope``
and the services' ``permissions.require_role``), so a person whose role was lowered loses what the token had.
"""

from __future__ import annotations

import hashlib
import secrets
import zlib
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from ddbmodels.core.errors import InvalidInput, NotFound
from tracker.models import (
    SCOPE_RANK,
    SCOPE_ROLE,
    TOKEN_DEFAULT_DAYS,
    TOKEN_MAX_DAYS,
    TOKEN_NAME_MAX,
    ApiScope,
    ApiToken,
    Membership,
    Role,
    token_scopes,
)

PREFIX = "trk_"
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BODY_LENGTH = 30  # ≈ 178.6 random bits
CHECK_LENGTH = 6  # base62 of a CRC32: at most "4gfFC3"
TOKEN_LENGTH = len(PREFIX) + BODY_LENGTH + CHECK_LENGTH  # 40
DEFAULT_EXPIRES_DAYS = TOKEN_DEFAULT_DAYS
MAX_EXPIRES_DAYS = TOKEN_MAX_DAYS
NAME_MAX = TOKEN_NAME_MAX
LAST_USED_EVERY = timedelta(seconds=60)  # at most one UPDATE a token a minute


@dataclass(frozen=True)
class Created:
    """A token just made, and its secret; ``secret`` is None when the same form was submitted before (its token
    was shown once then, and is not shown again)."""

    token: ApiToken
    secret: str | None


def _b62(number: int, width: int) -> str:
    out = ""
    while number:
        number, rest = divmod(number, 62)
        out = ALPHABET[rest] + out
    return out.rjust(width, "0")


def _checksum(body: str) -> str:
    return _b62(zlib.crc32(body.encode()), CHECK_LENGTH)


def new_secret() -> str:
    """A fresh token: the prefix, 30 random base62 characters, their CRC32 in base62."""
    body = "".join(secrets.choice(ALPHABET) for _ in range(BODY_LENGTH))
    return PREFIX + body + _checksum(body)


def well_formed(secret: str) -> bool:
    """The prefix, the length, the alphabet and the checksum hold (no SQL: junk is refused for free)."""
    if len(secret) != TOKEN_LENGTH or not secret.startswith(PREFIX):
        return False
    body, check = secret[len(PREFIX) : -CHECK_LENGTH], secret[-CHECK_LENGTH:]
    if any(char not in ALPHABET for char in body):
        return False
    return secrets.compare_digest(check, _checksum(body))


def key_hash(secret: str) -> str:
    """What is stored: the token's sha256 (a high-entropy secret needs no salt or slow hash)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def hint_of(secret: str) -> str:
    """How the token is shown after it was made: ``trk_`` and its last 4 characters."""
    return f"{PREFIX}…{secret[-4:]}"


def scopes_for(membership: Membership) -> list[str]:
    """The scopes this membership's role allows, the lowest first (a viewer: read only)."""
    return token_scopes(membership)


def scope_allows(scope: str, needed: str) -> bool:
    """True when a token of ``scope`` may do what needs ``needed``."""
    return SCOPE_RANK[ApiScope(scope)] >= SCOPE_RANK[ApiScope(needed)]


def call_refusal(*, membership: Membership, scope: str, needed: str) -> str | None:
    """Why a call that needs ``needed`` is refused to a token of ``scope`` held by ``membership`` (None: allowed):
    the token's scope must cover it, and its person's role, as it is now, too."""
    if not scope_allows(scope, needed):
        return f"This needs a token with the {needed} scope; this token has {scope}."
    role = SCOPE_ROLE[ApiScope(needed)]
    if not membership.allows(role):
        now = str(Role(membership.role).label).lower()
        return f"This needs the {role} role in {membership.tenant.name}; you are {now} there."
    return None


def _refuse_scope(membership: Membership, scope: str) -> None:
    if scope not in ApiScope.values:
        raise InvalidInput(f"Unknown scope {scope!r}: choose read, write or admin.", field="scope")
    if not membership.allows(SCOPE_ROLE[ApiScope(scope)]):
        role = str(Role(membership.role).label).lower()
        allowed = ", ".join(scopes_for(membership))
        raise PermissionDenied(
            f"As {role} of {membership.tenant.name} you may make tokens with the scope {allowed}, not {scope}."
        )


def token_create(
    *,
    membership: Membership,
    name: str,
    scope: str,
    expires_days: int = DEFAULT_EXPIRES_DAYS,
    request_key: str | None = None,
) -> Created:
    """A new token of ``membership`` with ``scope`` (at most its role: else PermissionDenied), expiring after
    ``expires_days`` (1–365, else InvalidInput). The same ``request_key`` again (the account page's form sent twice)
    makes nothing and answers the first token without its secret."""
    _refuse_scope(membership, scope)
    if not 1 <= expires_days <= MAX_EXPIRES_DAYS:
        raise InvalidInput(f"A token expires after 1 to {MAX_EXPIRES_DAYS} days.", field="expires_days")
    name = name.strip()
    if len(name) > NAME_MAX:
        raise InvalidInput(f"A token's name has at most {NAME_MAX} characters.", field="name")
    if request_key:
        earlier = _made_by(request_key, membership)
        if earlier is not None:
            return Created(earlier, None)
    secret = new_secret()
    now = timezone.now()
    try:
        with transaction.atomic():
            # Under the membership's row: removing the person (or offboarding) waits for this token, then takes it.
            if not Membership.objects.select_for_update().filter(pk=membership.pk).exists():
                raise NotFound(f"You are no longer in {membership.tenant.name}: no token was made.")
            token = ApiToken.objects.create(
                membership=membership,
                key_hash=key_hash(secret),
                hint=hint_of(secret),
                name=name,
                scope=scope,
                expires_at=now + timedelta(days=expires_days),
                request_key=request_key or None,
            )
    except IntegrityError:  # the same form, sent twice at once
        earlier = _made_by(request_key, membership) if request_key else None
        if earlier is None:
            raise
        return Created(earlier, None)
    return Created(token, secret)


def _made_by(request_key: str, membership: Membership) -> ApiToken | None:
    return (
        ApiToken.objects.select_related("membership__tenant")
        .filter(request_key=request_key, membership__user_id=membership.user_id)
        .first()
    )


def token_revoke(*, user: AbstractBaseUser, token_id: int) -> ApiToken:
    """Revoke one of the person's own tokens (another's, or none: NotFound); revoking it again changes nothing."""
    token = (
        ApiToken.objects.select_related("membership__tenant").filter(pk=token_id, membership__user_id=user.pk).first()
    )
    if token is None:
        raise NotFound("No such token.")
    if token.revoked_at is None:
        now = timezone.now()
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now)
        token.revoked_at = now
    return token


def token_authenticate(secret: str) -> ApiToken | None:
    """The live token ``secret`` names, with its membership, team and person loaded; None when it is malformed
    (no query), unknown, revoked, expired, or its person's account is inactive.

    One SELECT; and, at most once a minute a token, one UPDATE of ``last_used_at``.
    """
    if not well_formed(secret):
        return None
    token = (
        ApiToken.objects.select_related("membership__tenant", "membership__user")
        .filter(key_hash=key_hash(secret))
        .first()
    )
    now = timezone.now()
    if token is None or token.revoked_at is not None or token.expires_at <= now:
        return None
    if not token.membership.user.is_active:
        return None
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_EVERY:
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
        ApiToken.objects.filter(stale, pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def tokens_revoke(*, token_ids: list[int]) -> int:
    """Staff (the admin's action, a token a secret scanner reported): revoke these tokens; how many were live."""
    return ApiToken.objects.filter(pk__in=token_ids, revoked_at__isnull=True).update(revoked_at=timezone.now())
