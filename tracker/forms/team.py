"""Team forms: add a person, change a role, invite someone new, and sign up from an invitation."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from tracker.forms.idempotency import IdempotentForm
from tracker.models import Role

ROLE_HELP = "Owners run the team and its orders; members work on issues; viewers only read."


class MemberAddForm(IdempotentForm):
    """Invite a person who has an account; both team forms are on one page: each its own ids (add_role, invite_role).

    Carries an idempotency key: the same submission twice asks once.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "add_%s")
        super().__init__(*args, **kwargs)

    who = forms.CharField(
        label="Username or e-mail",
        max_length=254,
        help_text="Their exact username, or the e-mail address they confirmed. They join when they accept.",
    )
    role = forms.ChoiceField(choices=Role.choices, initial=Role.MEMBER, help_text=ROLE_HELP)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class InvitationForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "invite_%s")
        super().__init__(*args, **kwargs)

    email = forms.EmailField(
        label="E-mail (optional)", required=False, help_text="Only a note of whom the link is for; nothing is sent."
    )
    role = forms.ChoiceField(choices=Role.choices, initial=Role.MEMBER, help_text=ROLE_HELP)


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account from an invitation: username, e-mail (optional), password twice (Django's validators)."""

    email = forms.EmailField(label="E-mail (optional)", required=False)

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = "Letters, digits and @ . + - _ only; how others see you."
