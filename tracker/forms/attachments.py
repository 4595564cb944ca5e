"""The attachment form: the size limit, empty files and file names are checked here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.template.defaultfilters import filesizeformat

from ddbmodels.attachments import BadFilename, clean_filename
from tracker.forms.uploads import CappedUploadForm

NAME_INPUT_MAX = 500  # what the form accepts; clean_filename then cuts the name to FILENAME_MAX


class AttachmentForm(CappedUploadForm):
    file = forms.FileField(required=False, label="File")
    name = forms.CharField(
        required=False,
        max_length=NAME_INPUT_MAX,
        label="Save as",
        help_text="Optional: another name for the file (a name, not a path).",
    )

    def __init__(self, *args: Any, max_bytes: int, cut_off: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, max_bytes=max_bytes, cut_off=cut_off, **kwargs)
        self.fields["file"].help_text = f"Up to {filesizeformat(max_bytes)}."

    def clean_file(self) -> Any:
        return self.capped_upload(nothing_done="nothing was attached", missing="Choose a file to attach.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        upload = cleaned.get("file")
        if upload is None:
            return cleaned
        field = "name" if cleaned.get("name") else "file"
        try:
            cleaned["filename"] = clean_filename(cleaned.get("name") or upload.name or "")
        except BadFilename as error:
            self.add_error(field, str(error))
        return cleaned
