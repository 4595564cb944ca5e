"""URLs of the team-wide issue list (included by tracker/urls under /t/<tenant>/issues/)."""

from django.urls import URLPattern, path

from tracker.views import issue_lists

urlpatterns: list[URLPattern] = [
    path("", issue_lists.tenant_issue_list, name="tenant_issues"),
]
