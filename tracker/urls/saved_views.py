"""URLs of the saved views (included by tracker/urls under /t/<tenant>/views/)."""

from django.urls import URLPattern, path

from tracker.views import saved_views

urlpatterns: list[URLPattern] = [
    path("", saved_views.view_list, name="saved_views"),
    path("new/", saved_views.view_new, name="saved_view_new"),
    path("<str:view_id>/", saved_views.view_open, name="saved_view_open"),
    path("<str:view_id>/change/", saved_views.view_change, name="saved_view_change"),
]
