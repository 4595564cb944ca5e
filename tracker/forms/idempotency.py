"""The idempotency key of a creating form: made when the form is rendered, signed, checked on submit.

The key is a ULID (time-sortable, 80 random bits) signed with the site's secret, in a hidden
field. Submitting the same rendered form twice — a double click, a retry after a timeout, back
and submit again — sends the same key, and the write it reaches returns the first result
instead of creating another (``ddbmodels.idempotency``; for attachments the key is the
attachment's id). A form posted without a key (a script, an old page) simply gets none; a
tampered key is a form error.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core import signing

from ddbmodels.attachments import ATTACHMENT_ID_RE, new_attachment_id

SALT = "tracker.forms.idempotency"
DAMAGED = "This form is damaged (its key does not check out); reload the page and submit again."


def new_idempotency_key() -> str:
    """A fresh signed key, as the hidden field carries it."""
    return signing.Signer(salt=SALT).sign(new_attachment_id())


class IdempotentForm(forms.Form):
    """A form that creates something: carries ``idempotency_key`` (cleaned: the bare ULID, or None)."""

    idempotency_key = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.fields["idempotency_key"].initial = new_idempotency_key()

    def clean_idempotency_key(self) -> str | None:
        raw = self.cleaned_data.get("idempotency_key") or ""
        if not raw:
            return None
        try:
            key = signing.Signer(salt=SALT).unsign(raw)
        except signing.BadSignature:
            key = ""
        if not ATTACHMENT_ID_RE.match(key):
            self.add_error(None, DAMAGED)
            return None
        return key
