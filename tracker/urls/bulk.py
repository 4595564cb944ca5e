"""URLs of bulk edit: ``/t/<team>/p/<KEY>/bulk/`` (the list page's bulk bar posts here)."""

from django.urls import URLPattern, path

from tracker.views import bulk

urlpatterns: list[URLPattern] = [
    path("", bulk.bulk_edit, name="bulk_edit"),
]
