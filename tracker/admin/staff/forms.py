"""Forms of the staff Tracker views: bad input is a form error (a 400), never a guess."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from ddbmodels.orders import MAX_ORDER_NUMBER, PRESETS
from tracker.forms_orders import FIRST_YEAR, LAST_YEAR, RANGE_LABELS
from tracker.models import Tenant

LATEST, OLDEST = "latest", "oldest"
STAFF_RANGE_LABELS = {LATEST: "Latest 100", OLDEST: "Oldest 100", **{p: RANGE_LABELS[p] for p in PRESETS}}


class StaffOrdersForm(forms.Form):
    """Which orders: all tenants' or one tenant's; the latest or oldest 100, a preset range, or dates (UTC)."""

    tenant = forms.ModelChoiceField(
        queryset=Tenant.objects.order_by("name", "slug"),
        to_field_name="slug",
        required=False,
        empty_label="All tenants",
    )
    range = forms.ChoiceField(choices=list(STAFF_RANGE_LABELS.items()), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # "from" is a Python keyword, hence not a class attribute.
        self.fields["from"] = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
        self.fields["to"] = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start: date | None = data.get("from")
        end: date | None = data.get("to")
        for name, day in (("from", start), ("to", end)):
            if day is not None and not FIRST_YEAR <= day.year <= LAST_YEAR:
                self.add_error(name, f"Choose a date between {FIRST_YEAR} and {LAST_YEAR}.")
        if start and end and end < start:
            self.add_error("to", "The end date is before the start date.")
        if data.get("range") and (start or end):
            raise forms.ValidationError("Choose a range or dates, not both.")
        if data.get("tenant") is not None and data.get("range") == OLDEST:
            self.add_error("range", "A tenant's orders list newest first; “Oldest 100” is across all tenants.")
        return data


class OrderFindForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=MAX_ORDER_NUMBER, label="Order number")
