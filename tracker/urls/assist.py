"""URLs of the text boxes' helpers (included by tracker/urls under /t/<tenant>/): suggestions and preview."""

from django.urls import URLPattern, path

from tracker.views import assist

urlpatterns: list[URLPattern] = [
    path("autocomplete/", assist.autocomplete, name="assist_autocomplete"),
    path("preview/", assist.preview, name="assist_preview"),
]
