"""Who is calling: ``GET /api/v1/token`` answers what the calling token is, whose, for which team, what it may do.

A script checks its token with it before it works (is it live, which team, which scope, when it expires). It reads
what ``TokenAuth`` loaded: no DynamoDB, and no SQL beyond the token's own query.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from tracker.api.access import principal
from tracker.api.openapi import cost

router = Router(tags=["tokens"])


class TokenOut(Schema):
    """The calling token and who holds it."""

    hint: str = Field(description="How the token is shown: trk_ and its last 4 characters (never the token).")
    name: str = Field(description="What its person said it is for; empty when nothing.")
    scope: Literal["read", "write", "admin"] = Field(
        description="read; write (what a member may); admin (what an owner may: webhooks). A call needs this "
        "scope and the person's role as it is now."
    )
    team: str = Field(description="The team's slug: the one team this token reaches (/teams/{team}/…).")
    team_name: str
    username: str = Field(description="The person the calls act as.")
    role: Literal["owner", "member", "viewer"] = Field(description="The person's role in the team, now.")
    created_at: datetime
    expires_at: datetime = Field(description="After this the token is refused (401).")
    last_used_at: datetime | None = Field(description="Written at most once a minute.")


@router.get(
    "/token",
    response=TokenOut,
    summary="The calling token",
    openapi_extra=cost(requests=0, note="Django's database only: the token's own query; no DynamoDB read."),
)
def token_read(request: HttpRequest) -> dict[str, Any]:
    """What the token in `Authorization: Bearer …` is: its team, person, role, scope and expiry."""
    caller = principal(request)
    token, membership = caller.token, caller.membership
    assert token is not None  # TokenAuth sets it
    return {
        "hint": token.hint,
        "name": token.name,
        "scope": token.scope,
        "team": membership.tenant.slug,
        "team_name": membership.tenant.name,
        "username": membership.user.get_username(),
        "role": membership.role,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        "last_used_at": token.last_used_at,
    }
