"""API tokens in the admin: staff find a token and revoke it; nothing else about a token changes here.

A token is found by its hint (``trk_…abcd``: type the last 4), its name, its person or its team, or by the whole
token (one a secret scanner reported): that is matched by its hash, the only thing stored. Tokens are made by their
people (``/account/tokens/``) or ``manage.py create_api_token``, never here: the admin never sees a secret.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from tracker.models import ApiToken
from tracker.services import api_tokens


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("hint", "name", "person", "team", "scope", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ["scope", "membership__tenant"]
    list_select_related = ["membership__user", "membership__tenant"]
    search_fields = ["hint", "name", "membership__user__username", "membership__tenant__slug"]
    search_help_text = "The token's last 4 characters, its name, its person or team; or the whole token."
    shown = ("hint", "name", "person", "team", "scope", "created_at", "expires_at", "last_used_at", "revoked_at")
    fields = shown  # never key_hash or the form's request_key
    readonly_fields = shown
    actions = ["revoke"]

    @admin.display(description="person", ordering="membership__user__username")
    def person(self, token: ApiToken) -> str:
        return token.membership.user.get_username()

    @admin.display(description="team", ordering="membership__tenant__slug")
    def team(self, token: ApiToken) -> str:
        return token.membership.tenant.slug

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[ApiToken], search_term: str
    ) -> tuple[QuerySet[ApiToken], bool]:
        term = search_term.strip()
        if api_tokens.well_formed(term):  # a whole token: found by its hash, never stored or logged
            return queryset.filter(key_hash=api_tokens.key_hash(term)), False
        return super().get_search_results(request, queryset, search_term)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a token is shown once to its person: made on their page or by the command

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        revoked = api_tokens.tokens_revoke(token_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{revoked} token(s) revoked: calls with them are refused.", messages.SUCCESS)
