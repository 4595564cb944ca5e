"""A person's API tokens, for their account page (SQL only: no DynamoDB)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from tracker.models import ApiToken


def user_tokens(*, user: AbstractBaseUser | AnonymousUser) -> list[ApiToken]:
    """The person's tokens of every team, with their teams (one query), by team then newest first; [] for anonymous."""
    if not user.is_authenticated:
        return []
    return list(
        ApiToken.objects.select_related("membership__tenant")
        .filter(membership__user_id=user.pk)
        .order_by("membership__tenant__name", "-created_at", "-pk")
    )
