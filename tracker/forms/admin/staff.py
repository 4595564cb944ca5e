"""Forms of the staff Tracker views (orders of every tenant): bad input is a form error (a 400), never a guess."""

from __future__ import annotations

from typing import Any

from django import forms

from ddbmodels.orders import MAX_ORDER_NUMBER, PRESETS
from tracker.forms.orders import RANGE_LABELS, OrderRangeForm
from tracker.models import Tenant

LATEST, OLDEST = "latest", "oldest"
STAFF_RANGE_LABELS = {LATEST: "Latest 100", OLDEST: "Oldest 100", **{p: RANGE_LABELS[p] for p in PRESETS}}


class StaffOrdersForm(OrderRangeForm):
    """Which orders: all tenants' or one tenant's; the latest or oldest 100, a preset range, or dates (UTC)."""

    tenant = forms.ModelChoiceField(
        queryset=Tenant.objects.order_by("name", "slug"),
        to_field_name="slug",
        required=False,
        empty_label="All tenants",
    )
    range = forms.ChoiceField(choices=list(STAFF_RANGE_LABELS.items()), required=False)
    field_order = ["tenant", "range"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("tenant") is not None and data.get("range") == OLDEST:
            self.add_error("range", "A tenant's orders list newest first; “Oldest 100” is across all tenants.")
        return data


class OrderFindForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=MAX_ORDER_NUMBER, label="Order number")
