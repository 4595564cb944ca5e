"""URLs of the leaderboard pages (included by tracker/urls under /t/<tenant>/leaderboard/)."""

from django.urls import URLPattern, path

from tracker.views import leaderboard

urlpatterns: list[URLPattern] = [
    path("", leaderboard.leaderboard, name="leaderboard"),
]
