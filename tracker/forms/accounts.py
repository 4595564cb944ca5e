"""Account forms: change one's e-mail address (with the password), confirm an address."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User


class AddressChangeForm(forms.Form):
    email = forms.EmailField(label="New e-mail address", max_length=254)
    password = forms.CharField(label="Your password", widget=forms.PasswordInput, strip=False)

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


class ConfirmForm(forms.Form):
    token = forms.CharField(widget=forms.HiddenInput, max_length=500)
