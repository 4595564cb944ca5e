"""Milestone forms: new and edit (name, due date, description), and closing one (what its open issues do)."""

from __future__ import annotations

from typing import Any

from django import forms

from ddbmodels.milestones import DESCRIPTION_MAX, NAME_MAX, MilestoneItem
from tracker.forms.idempotency import IdempotentForm


class MilestoneForm(IdempotentForm):
    name = forms.CharField(max_length=NAME_MAX, help_text="Unique in the project, e.g. v1.2; no double quotes.")
    due = forms.DateField(required=False, label="Due date", widget=forms.DateInput(attrs={"type": "date"}))
    description = forms.CharField(required=False, max_length=DESCRIPTION_MAX, widget=forms.Textarea(attrs={"rows": 3}))
    version = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Give the milestone a name.")
        if '"' in name:
            raise forms.ValidationError("A name cannot hold double quotes (the list's filter quotes names with them).")
        return name


CLOSE_CHOICES = [
    ("move", "Move them to another open milestone"),
    ("remove", "Take them out of any milestone"),
    ("keep", "Close it anyway (they stay in it)"),
]


class CloseForm(IdempotentForm):
    """Closing a milestone that still has open issues: where they go."""

    issues = forms.ChoiceField(
        choices=CLOSE_CHOICES,
        widget=forms.RadioSelect,
        initial="move",
        label="Its open issues",
        error_messages={"invalid_choice": "That is no longer offered (no other milestone is open now): choose again."},
    )
    to = forms.ChoiceField(
        required=False,
        label="Move them to",
        error_messages={"invalid_choice": "That milestone is not open any more: choose another one."},
    )
    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, others: list[MilestoneItem], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        to = self.fields["to"]
        issues = self.fields["issues"]
        assert isinstance(to, forms.ChoiceField)
        assert isinstance(issues, forms.ChoiceField)
        to.choices = [("", "—")] + [(m.milestone_id, m.name) for m in others]
        if not others:  # nowhere to move them: the choice and its select are not offered
            issues.choices = [choice for choice in CLOSE_CHOICES if choice[0] != "move"]
            issues.initial = "remove"
            del self.fields["to"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("issues") == "move" and not data.get("to"):
            self.add_error("to", "Choose the milestone they move to.")
        return data


class VersionOnly(forms.Form):
    """A posted ``version`` alone (reopening; closing a milestone without open issues)."""

    version = forms.IntegerField(widget=forms.HiddenInput)


class IssueMilestoneForm(IdempotentForm):
    """The issue page's milestone form: the issue (number, version as shown) and the milestone's id ("": none)."""

    n = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    v = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    milestone = forms.CharField(required=False, max_length=26)
