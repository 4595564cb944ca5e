"""Who is calling: ``Authorization: Bearer trk_…`` (never the session cookie: ninja's views are CSRF-exempt).

``TokenAuth`` is the API's default authentication: a malformed token is refused before any SQL query, a live one
costs one query (``tracker.services.api_tokens.token_authenticate``), and the operation finds ``request.auth``, an
``ApiPrincipal``: the token's id and hint, its membership (role, team, person) and scope. Anything else is a 401
problem document with ``WWW-Authenticate: Bearer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.http import HttpRequest
from ninja.security import HttpBearer

from tracker.services import api_tokens

if TYPE_CHECKING:
    from tracker.models import ApiToken, Membership


@dataclass(frozen=True)
class ApiPrincipal:
    """The caller of one API request: which token, whose membership of which team, and what the token may do."""

    token_id: int
    hint: str
    membership: Membership
    scope: str
    token: ApiToken | None = field(default=None, compare=False, repr=False)  # the row as read (GET /token)


class TokenAuth(HttpBearer):
    """Bearer tokens of ``tracker.services.api_tokens``; None (a 401) for any token that is not live."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiPrincipal | None:
        found = api_tokens.token_authenticate(token.strip())
        if found is None:
            return None
        return ApiPrincipal(
            token_id=found.pk, hint=found.hint, membership=found.membership, scope=found.scope, token=found
        )
