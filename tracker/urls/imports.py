"""URLs of the import pages (included by tracker/urls under /t/<tenant>/imports/)."""

from django.urls import URLPattern, path

import tracker.urls.converters  # noqa: F401  (registers attid: an import's id is a ULID too)
from tracker.views import imports

urlpatterns: list[URLPattern] = [
    path("new/", imports.import_new, name="import_new"),
    path("<attid:import_id>/", imports.import_detail, name="import_detail"),
    path("<attid:import_id>/status.json", imports.import_status, name="import_status"),
]
