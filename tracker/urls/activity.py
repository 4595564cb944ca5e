"""URLs of the team's activity feed (included by tracker/urls under /t/<tenant>/activity/)."""

from django.urls import URLPattern, path

from tracker.views import activity

urlpatterns: list[URLPattern] = [
    path("", activity.tenant_activity, name="tenant_activity"),
]
