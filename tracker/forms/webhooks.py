"""The owners' webhook forms: register one (once per rendered form), edit one on its version, a version alone."""

from __future__ import annotations

from django import forms

from ddbmodels.events import WEBHOOK_EVENTS
from ddbmodels.webhooks import DESCRIPTION_MAX, URL_MAX
from tracker.forms.idempotency import IdempotentForm

EVENT_CHOICES = [(name, name) for name in sorted(set(WEBHOOK_EVENTS.values()))]


class _WebhookFields(forms.Form):
    url = forms.CharField(
        label="Payload URL",
        max_length=URL_MAX,
        widget=forms.URLInput(attrs={"placeholder": "https://ci.example.com/tracker-hook", "autocomplete": "off"}),
        help_text="Tracker POSTs a signed JSON body here: a public https:// (or http://) address, never a private one.",
    )
    events = forms.MultipleChoiceField(
        label="Events",
        choices=EVENT_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one event to send."},
    )
    description = forms.CharField(
        label="Description",
        required=False,
        max_length=DESCRIPTION_MAX,
        help_text="What it is for, for your teammates (optional).",
    )


class WebhookCreateForm(IdempotentForm, _WebhookFields):
    """Register an endpoint: the form's key is its id, so sending the form twice registers one."""


class WebhookEditForm(_WebhookFields):
    """Edit an endpoint on the version its page showed."""

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class WebhookVersionForm(forms.Form):
    """Enable, disable or delete an endpoint on the version its page showed."""

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
