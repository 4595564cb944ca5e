"""URL of one's notification settings (included by tracker/urls under /t/<tenant>/settings/notifications/)."""

from django.urls import URLPattern, path

from tracker.views import notify_settings

urlpatterns: list[URLPattern] = [
    path("", notify_settings.notify_settings, name="notify_settings"),
]
