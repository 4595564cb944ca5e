"""Make an API token for a person in one team; the token is the last line printed (``… | tail -n 1``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from ddbmodels.core.errors import InvalidInput, NotFound
from tracker.models import ApiScope, Membership
from tracker.services import api_tokens


class Command(BaseCommand):
    help = (
        "Make an API token of USERNAME in team SLUG with a scope (at most the person's role: a viewer's is read). "
        "It is shown once, as the last line; only its hash is kept."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username", help="whose token: the calls act as this person")
        parser.add_argument("--team", required=True, help="the team's slug (the token reaches only this team)")
        parser.add_argument("--scope", required=True, choices=ApiScope.values, help="read, write, or admin (webhooks)")
        parser.add_argument(
            "--expires-days",
            type=int,
            default=api_tokens.DEFAULT_EXPIRES_DAYS,
            help=f"days until it expires: 1 to {api_tokens.MAX_EXPIRES_DAYS} (default %(default)s)",
        )
        parser.add_argument("--name", default="", help="what it is for (shown on the person's tokens page)")

    def handle(self, *args: Any, **options: Any) -> None:
        username, team = options["username"], options["team"]
        membership = (
            Membership.objects.select_related("tenant", "user")
            .filter(user__username=username, tenant__slug=team)
            .first()
        )
        if membership is None:
            raise CommandError(f"{username} is not a member of a team {team}.")
        if not membership.user.is_active:
            raise CommandError(f"The account {username} is deactivated: its tokens would not work.")
        try:
            created = api_tokens.token_create(
                membership=membership,
                name=options["name"],
                scope=options["scope"],
                expires_days=options["expires_days"],
            )
        except (PermissionDenied, InvalidInput, NotFound) as refused:
            raise CommandError(str(refused)) from refused
        token = created.token
        self.stdout.write(
            f"Token {token.hint} of {username} in {membership.tenant.slug} ({membership.role}), "
            f"scope {token.scope}, expires {token.expires_at:%Y-%m-%d %H:%M} UTC. "
            "It is shown once, here; only its hash is kept:"
        )
        self.stdout.write(str(created.secret))
