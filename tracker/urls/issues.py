"""URLs of the issue pages (included by tracker/urls under /t/<tenant>/p/<project>/)."""

from django.urls import URLPattern, path

import tracker.urls.converters  # noqa: F401  (num)
from tracker.views import activity, issue_lists, issues

urlpatterns: list[URLPattern] = [
    path("", issue_lists.issue_list, name="issue_list"),
    path("new/", issues.issue_create, name="issue_create"),
    path("<num:number>/", issues.issue_detail, name="issue_detail"),
    path("<num:number>/edit/", issues.issue_edit, name="issue_edit"),
    path("<num:number>/status/", issues.issue_status, name="issue_status"),
    path("<num:number>/delete/", issues.issue_delete, name="issue_delete"),
    path("<num:number>/history/remove-change/", activity.history_change_remove, name="history_change_remove"),
]
