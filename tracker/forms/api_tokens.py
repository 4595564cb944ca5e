"""The account page's form that makes an API token: which team, what for, what it may do, how long it lives."""

from __future__ import annotations

from typing import Any

from django import forms

from tracker.forms.idempotency import IdempotentForm
from tracker.models import TOKEN_DEFAULT_DAYS, TOKEN_MAX_DAYS, TOKEN_NAME_MAX, ApiScope, Membership, token_scopes

SCOPE_HELP = "Read: see what you can see. Read and write: change what you may change. Admin: webhooks too (owners)."


class TokenCreateForm(IdempotentForm):
    """A token of one of the person's teams; its scope at most their role there. Sent twice: one token."""

    team = forms.ChoiceField(help_text="A token reaches this team only.")
    name = forms.CharField(
        max_length=TOKEN_NAME_MAX, required=False, help_text="What it is for (a CI job, a dashboard), to recognise it."
    )
    scope = forms.ChoiceField(choices=ApiScope.choices, initial=ApiScope.READ, help_text=SCOPE_HELP)
    expires_days = forms.IntegerField(
        label="Expires after (days)",
        min_value=1,
        max_value=TOKEN_MAX_DAYS,
        initial=TOKEN_DEFAULT_DAYS,
        help_text=f"1 to {TOKEN_MAX_DAYS} days.",
    )

    def __init__(self, *args: Any, memberships: list[Membership], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memberships = {m.tenant.slug: m for m in memberships}
        field = self.fields["team"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(m.tenant.slug, f"{m.tenant.name} ({m.get_role_display().lower()})") for m in memberships]
        self.membership: Membership | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        membership = self.memberships.get(data.get("team") or "")
        scope = data.get("scope")
        if membership is not None and scope:
            allowed = token_scopes(membership)
            if scope not in allowed:
                role = membership.get_role_display().lower()
                self.add_error(
                    "scope",
                    f"As {role} of {membership.tenant.name} your tokens may have the scope {' or '.join(allowed)}.",
                )
        self.membership = membership
        return data
