"""The import form: a new project's key and name, and a GitHub issues export (size and shape checked here)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.template.defaultfilters import filesizeformat

from ddbmodels.comments import BODY_MAX
from ddbmodels.core.errors import InvalidInput
from ddbmodels.issues import PROJECT_KEY_RE
from tracker.forms.uploads import CappedUploadForm
from tracker.imports.preview import Preview, import_preview


class ImportForm(CappedUploadForm):
    key = forms.CharField(
        max_length=10,
        label="Project key",
        help_text="For the new project: 2–10 letters and digits, starting with a letter, e.g. WEB.",
    )
    name = forms.CharField(max_length=100, label="Project name")
    file = forms.FileField(required=False, label="GitHub export (JSON)")

    comment_max = BODY_MAX  # the comment form's cap, for imported comments too (the page says it)

    def __init__(self, *args: Any, max_bytes: int, cut_off: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, max_bytes=max_bytes, cut_off=cut_off, **kwargs)
        self.fields["file"].help_text = (
            "The JSON array GitHub's REST API returns for the repository's issues "
            f"(GET /repos/OWNER/REPO/issues?state=all, pages joined), up to {filesizeformat(max_bytes)}. "
            "Pull requests in it are skipped; issue numbers are kept."
        )

    def clean_key(self) -> str:
        key = self.cleaned_data["key"].strip().upper()
        if not PROJECT_KEY_RE.match(key):
            raise forms.ValidationError("2–10 letters or digits, starting with a letter.")
        return key

    def clean_file(self) -> Any:
        upload = self.capped_upload(nothing_done="nothing was imported", missing="Choose the export file to import.")
        data = upload.read()
        try:
            preview = import_preview(data=data, name=upload.name or "the file")
        except InvalidInput as error:
            raise forms.ValidationError(
                f"This is not a GitHub issues export we can read, so nothing was imported: {error}", code="malformed"
            ) from error
        if not preview.issues:
            raise forms.ValidationError("The file holds no issues (only pull requests, or nothing).", code="empty")
        self.data_bytes: bytes = data
        self.preview: Preview = preview
        return upload
