"""Leaderboard forms: which top to show, 10 or 50 — anything else is a 400, not a guess."""

from __future__ import annotations

from django import forms

from tracker.selectors.leaderboard import TOP_CHOICES

BAD_TOP = "The leaderboard shows the top 10 or the top 50: use ?top=10 or ?top=50."


class TopForm(forms.Form):
    """``?top=10`` or ``?top=50``; absent or empty means the default (10)."""

    top = forms.TypedChoiceField(
        choices=[(str(k), f"Top {k}") for k in TOP_CHOICES], coerce=int, required=False, empty_value=None
    )
