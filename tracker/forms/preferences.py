"""The forms of saved views (save, rename/share/delete) and of one's notification settings."""

from __future__ import annotations

from django import forms

from ddbmodels.issues import PROJECT_KEY_RE
from ddbmodels.preferences import NAME_MAX, QUERY_MAX
from tracker.forms.idempotency import IdempotentForm

VERSION_MAX = 10**9  # a version past any a page shows: more is a damaged form (DynamoDB refuses > 38 digits)

LEVEL_CHOICES = [
    ("participating", "Participating: issues you reported, are assigned, commented on, were mentioned in or watch"),
    ("watching", "Watching: all of that, and every new issue in the team (you then watch it)"),
    ("off", "Off: no notifications and no e-mail from this team"),
]


class ViewSaveForm(IdempotentForm):
    """Save the list's query under a name; the idempotency key becomes the view's id (saved once)."""

    name = forms.CharField(max_length=NAME_MAX, label="Name", strip=True)
    q = forms.CharField(max_length=QUERY_MAX, required=False, label="Query", strip=True)
    project = forms.CharField(max_length=10, required=False, widget=forms.HiddenInput)

    def clean_project(self) -> str | None:
        value: str = self.cleaned_data.get("project") or ""
        if value and not PROJECT_KEY_RE.match(value):
            raise forms.ValidationError("That is not a project key.")
        return value or None


class ViewChangeForm(forms.Form):
    """Rename, share, unshare or delete one's own view, on the version the page showed."""

    ACTIONS = ("rename", "share", "unshare", "delete")

    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    version = forms.IntegerField(min_value=1, max_value=VERSION_MAX, widget=forms.HiddenInput)
    name = forms.CharField(max_length=NAME_MAX, required=False, strip=True)

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("action") == "rename" and not data.get("name"):
            self.add_error("name", "A view needs a name.")
        return data


class NotifyForm(forms.Form):
    """One's notification level and e-mail choice in this team."""

    level = forms.ChoiceField(choices=LEVEL_CHOICES, widget=forms.RadioSelect, label="Notify me")
    email = forms.BooleanField(required=False, label="Also e-mail me (a digest per issue)")
    version = forms.IntegerField(min_value=0, max_value=VERSION_MAX, widget=forms.HiddenInput)
