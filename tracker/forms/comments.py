"""Comment forms: add (with an idempotency key), edit (with the version it was loaded at), delete."""

from __future__ import annotations

from django import forms

from ddbmodels.comments import BODY_MAX, check_body
from ddbmodels.core.errors import InvalidInput
from tracker.forms.idempotency import IdempotentForm

BODY_HELP = "Markdown: **bold**, _italic_, `code`, lists, links, > quotes. Mention a teammate with @name."


class _BodyMixin(forms.Form):
    body = forms.CharField(
        label="Comment",
        max_length=BODY_MAX,
        strip=False,
        help_text=BODY_HELP,
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": BODY_MAX}),
    )

    def clean_body(self) -> str:
        try:
            return check_body(self.cleaned_data["body"])
        except InvalidInput as error:
            raise forms.ValidationError(str(error)) from error


class CommentForm(_BodyMixin, IdempotentForm):
    """A new comment; the hidden idempotency key makes a resubmission add nothing."""


class CommentEditForm(_BodyMixin):
    """An edit of one's own comment, made on ``version``."""

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class CommentDeleteForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
