"""URLs of the leaderboard pages (included by tracker/urls.py under the tenant)."""

from django.urls import URLPattern, path

from tracker.views import leaderboard

urlpatterns: list[URLPattern] = [
    path("", leaderboard.leaderboard, name="leaderboard"),
]
