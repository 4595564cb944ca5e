"""URLs of the team-wide issue list and its "New issue" (included by tracker/urls under /t/<tenant>/issues/)."""

from django.urls import URLPattern, path

from tracker.views import issue_lists, projects

urlpatterns: list[URLPattern] = [
    path("", issue_lists.tenant_issue_list, name="tenant_issues"),
    path("new/", projects.issue_create_choose, name="issue_create_choose"),
]
