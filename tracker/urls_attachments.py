"""URLs of the attachments pages (included by tracker/urls.py under the tenant).

Mounted at /t/<tenant>/p/<project>/<number>/attachments/, so every view receives the tenant,
project and issue number and resolves them (404 when not the user's) before the attachment.
"""

from django.urls import URLPattern, path, register_converter

from ddbmodels.attachments import ATTACHMENT_ID_RE
from tracker.views import attachments


class AttachmentIdConverter:
    """A ULID: 26 Crockford base32 characters. Anything else is not an attachment (404)."""

    regex = ATTACHMENT_ID_RE.pattern.strip("^$")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AttachmentIdConverter, "attid")

urlpatterns: list[URLPattern] = [
    path("", attachments.attachment_upload, name="attachment_upload"),
    path("<attid:attachment>/", attachments.attachment_download, name="attachment_download"),
    path("<attid:attachment>/detach/", attachments.attachment_detach, name="attachment_detach"),
]
