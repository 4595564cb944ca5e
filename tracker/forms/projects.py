"""The project form: a key (it prefixes every issue number), a name, a description."""

from __future__ import annotations

from django import forms

from ddbmodels.issues import PROJECT_KEY_RE


class ProjectForm(forms.Form):
    key = forms.CharField(
        max_length=10,
        help_text="2–10 letters and digits, starting with a letter, e.g. WEB. It prefixes every issue number.",
    )
    name = forms.CharField(max_length=100)
    description = forms.CharField(max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def clean_key(self) -> str:
        key = self.cleaned_data["key"].strip().upper()
        if not PROJECT_KEY_RE.match(key):
            raise forms.ValidationError("2–10 letters or digits, starting with a letter.")
        return key
