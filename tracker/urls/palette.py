"""URLs of "Go to": the command palette's results, as JSON or as a page (included under /t/<tenant>/go/)."""

from django.urls import URLPattern, path

from tracker.views import palette

urlpatterns: list[URLPattern] = [
    path("", palette.go, name="go"),
]
