"""What the caller may reach: its own team only (another team's URL is a 404, as on the pages), within its scope.

Every operation starts with ``membership = team_access(request, team)``; a write adds
``require_scope(request, "write")`` (webhooks: ``"admin"``). Both read what ``TokenAuth`` loaded: no query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from tracker.api.auth import ApiPrincipal
from tracker.services.api_tokens import call_refusal, scope_allows

if TYPE_CHECKING:
    from tracker.models import Membership

Scope = Literal["read", "write", "admin"]


def principal(request: HttpRequest) -> ApiPrincipal:
    """The caller ``TokenAuth`` found (an operation without authentication has none: a programming error)."""
    found = getattr(request, "auth", None)
    if not isinstance(found, ApiPrincipal):
        raise RuntimeError("this operation runs without TokenAuth: it has no caller")
    return found


def team_access(request: HttpRequest, team: str) -> Membership:
    """The caller's membership when ``team`` is its token's team; Http404 for any other (existing or not)."""
    membership = principal(request).membership
    if membership.tenant.slug != team:
        raise Http404("No such team.")
    return membership


def require_scope(request: HttpRequest, scope: Scope) -> None:
    """PermissionDenied (403) unless the token's scope covers ``scope`` and its person's role, today, does too."""
    caller = principal(request)
    refusal = call_refusal(membership=caller.membership, scope=caller.scope, needed=scope)
    if refusal:
        raise PermissionDenied(refusal)


def require_token_scope(request: HttpRequest, scope: Scope) -> None:
    """PermissionDenied (403) unless the token's scope covers ``scope``; the person's role now is not read here.

    What a create checks before its key's replay (``idempotency.run_once``): a token that could never make the item
    gets no replay, and a person whose role was lowered since still gets their own create's first answer (the
    create itself, run only for a key that made nothing, calls ``require_scope``).
    """
    caller = principal(request)
    if not scope_allows(caller.scope, scope):
        raise PermissionDenied(f"This needs a token with the {scope} scope; this token has {caller.scope}.")
