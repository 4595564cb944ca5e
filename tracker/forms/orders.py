"""Order forms: every rule on order input is here, so bad input is a form error and writes nothing."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from ddbmodels.orders import DELIVERY_METHODS, PRESETS, PRODUCTS, STATUSES
from tracker.forms.idempotency import IdempotentForm

PRODUCT_LABELS = {"seats": "Seats", "storage": "Storage (GB)", "support_hours": "Support hours"}
QUANTITY_WORDS = {"seats": "seats", "storage": "GB of storage", "support_hours": "support hours"}
DELIVERY_LABELS = {
    "standard": "Standard (within 3 business days)",
    "expedited": "Expedited (same business day)",
    "next_cycle": "At the start of the next billing cycle",
}
ORDER_STATUS_LABELS = {"pending": "Pending", "paid": "Paid", "fulfilled": "Fulfilled", "cancelled": "Cancelled"}
RANGE_LABELS = {"": "All time", "24h": "Last 24 hours", "7d": "Last 7 days", "1m": "Last month", "3m": "Last 3 months"}
# Dates outside these years are typing mistakes (and keep the sort keys' four-digit years).
FIRST_YEAR, LAST_YEAR = 2000, 2999


class OrderForm(IdempotentForm):
    product = forms.ChoiceField(choices=[(code, PRODUCT_LABELS[code]) for code in PRODUCTS])
    quantity = forms.IntegerField(min_value=1, initial=1)
    delivery = forms.ChoiceField(
        choices=[(code, DELIVERY_LABELS[code]) for code in DELIVERY_METHODS], initial="standard"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limits = ", ".join(f"{p.max_quantity:,} {QUANTITY_WORDS[p.code]}" for p in PRODUCTS.values())
        self.fields["quantity"].help_text = f"At most, per order: {limits}."

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        product, quantity = data.get("product"), data.get("quantity")
        if product in PRODUCTS and quantity is not None:
            limit = PRODUCTS[product]
            if quantity > limit.max_quantity:
                self.add_error("quantity", f"At most {limit.max_quantity:,} {QUANTITY_WORDS[product]} per order.")
        return data


class OrderTransitionForm(forms.Form):
    to = forms.ChoiceField(choices=[(s, ORDER_STATUS_LABELS[s]) for s in STATUSES])
    # Cancelling asks first: the cancel confirmation page sends confirm=yes.
    confirm = forms.BooleanField(required=False)


class OrderRangeForm(forms.Form):
    """The list's time range: a preset (``range``) or custom dates (``from``/``to``, UTC, inclusive)."""

    range = forms.ChoiceField(choices=list(RANGE_LABELS.items()), required=False)

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
            raise forms.ValidationError("Choose a preset range or dates, not both.")
        return data


def preset_choices() -> list[tuple[str, str]]:
    """(value, label) of the range presets, "All time" first."""
    return [("", RANGE_LABELS[""])] + [(p, RANGE_LABELS[p]) for p in PRESETS]
