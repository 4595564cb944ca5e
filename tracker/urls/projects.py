"""URLs of the project pages (included by tracker/urls under /t/<tenant>/)."""

from django.urls import URLPattern, path

from tracker.views import projects

urlpatterns: list[URLPattern] = [
    path("", projects.project_list, name="project_list"),
    path("projects/new/", projects.project_create, name="project_create"),
]
