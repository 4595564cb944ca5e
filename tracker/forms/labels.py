"""The labels pages' forms: a label's name, colour (one of the palette's) and description; rename; confirm."""

from __future__ import annotations

from django import forms

from ddbmodels.issues import LABEL_MAX
from ddbmodels.labels import COLOURS, DEFAULT_COLOUR, DESCRIPTION_MAX
from tracker.forms.idempotency import IdempotentForm
from tracker.issue_terms import LABEL_RE

NAME_HELP = f"Up to {LABEL_MAX} letters, digits, dots, dashes or underscores, e.g. needs-review."


def _name(value: str) -> str:
    value = value.strip().lower()
    if not LABEL_RE.match(value) or len(value) > LABEL_MAX:
        raise forms.ValidationError(NAME_HELP)
    return value


class LabelForm(forms.Form):
    """A label's colour and description (and its name when new); ``version`` is what an edit was read at."""

    name = forms.CharField(max_length=LABEL_MAX, help_text=NAME_HELP)
    colour = forms.ChoiceField(choices=[(c, c) for c in COLOURS], initial=DEFAULT_COLOUR, widget=forms.RadioSelect)
    description = forms.CharField(
        max_length=DESCRIPTION_MAX, required=False, help_text="What the label is for, shown on the labels page."
    )
    version = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)

    def __init__(self, *args: object, editing: bool = False, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        if editing:
            del self.fields["name"]
            self.fields["version"].required = True

    def clean_name(self) -> str:
        return _name(self.cleaned_data["name"])


class RenameForm(IdempotentForm):
    """The new name (the first step), then the confirm page's post: ``confirm`` and the page's key."""

    to = forms.CharField(label="New name", max_length=LABEL_MAX, help_text=NAME_HELP)
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean_to(self) -> str:
        return _name(self.cleaned_data["to"])


class ConfirmForm(IdempotentForm):
    """A delete's confirm: the version its page read, and the page's key (a second send is told so)."""

    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
