"""A creating form with one file field under a size limit (attachments, imports): the limit checked once."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.template.defaultfilters import filesizeformat

from tracker.forms.idempotency import IdempotentForm


class CappedUploadForm(IdempotentForm):
    """``file`` is refused above ``max_bytes``, or when the upload handler cut it off there.

    ``tracker.views.uploads.SizeLimitHandler`` stops reading a file part at the limit, so a
    bigger file never reaches the disk; the view passes its ``cut_off`` here.
    """

    file = forms.FileField(required=False)

    def __init__(self, *args: Any, max_bytes: int, cut_off: bool = False, **kwargs: Any) -> None:
        """``cut_off``: the upload handler stopped reading the file at ``max_bytes``."""
        super().__init__(*args, **kwargs)
        self.max_bytes = max_bytes
        self.cut_off = cut_off

    def capped_upload(self, *, nothing_done: str, missing: str) -> UploadedFile:
        """The cleaned upload; ValidationError ``too_large`` (saying ``nothing_done``) or ``required``."""
        upload = self.cleaned_data.get("file")
        if self.cut_off or (upload is not None and upload.size is not None and upload.size > self.max_bytes):
            raise forms.ValidationError(
                f"The file is larger than {filesizeformat(self.max_bytes)}, the limit; {nothing_done}.",
                code="too_large",
            )
        if upload is None:
            raise forms.ValidationError(missing, code="required")
        return upload

    @property
    def too_large(self) -> bool:
        return self.has_error("file", code="too_large")
