"""URLs of the attachments pages (included by tracker/urls under the tenant).

Mounted at /t/<tenant>/p/<project>/<number>/attachments/, so every view receives the tenant,
project and issue number and resolves them (404 when not the user's) before the attachment.
"""

from django.urls import URLPattern, path

import tracker.urls.converters  # noqa: F401  (attid)
from tracker.views import attachments

urlpatterns: list[URLPattern] = [
    path("", attachments.attachment_upload, name="attachment_upload"),
    path("<attid:attachment>/", attachments.attachment_download, name="attachment_download"),
    path("<attid:attachment>/detach/", attachments.attachment_detach, name="attachment_detach"),
]
