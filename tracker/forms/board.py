"""The board's forms: a card moved to another column (``n``, its version ``v``, ``to``), and where the columns are."""

from __future__ import annotations

from django import forms

from ddbmodels.issues import STATUSES
from ddbmodels.milestones import NAME_MAX
from tracker.issue_terms import STATUS_LABELS

CURSOR_MAX = 2000  # a signed cursor is a few hundred characters; anything longer is not ours


class MoveForm(forms.Form):
    n = forms.IntegerField(min_value=1)
    v = forms.IntegerField(min_value=0)
    to = forms.ChoiceField(choices=[(s, STATUS_LABELS[s]) for s in STATUSES])

    def problem(self) -> str:
        """What is wrong with the posted move, in the board's words."""
        if "to" in self.errors:
            return "Unknown status."
        if "v" in self.errors:
            return "The card is missing its version; reload the board."
        return "Unknown issue number."


class BoardForm(forms.Form):
    """The board's GET parameters: each column's cursor, by status (``?open=…&closed=…``), and a milestone's name."""

    milestone = forms.CharField(required=False, max_length=NAME_MAX)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        for status in STATUSES:
            self.fields[status] = forms.CharField(required=False, max_length=CURSOR_MAX)

    def params(self) -> dict[str, str]:
        """What was given (valid form): the paged columns' cursors, then the milestone; empty ones left out."""
        names = [*STATUSES, "milestone"]
        return {name: self.cleaned_data[name] for name in names if self.cleaned_data.get(name)}
