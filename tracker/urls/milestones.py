"""URLs of a project's milestones (included by tracker/urls under /t/<tenant>/p/<project>/milestones/)."""

from django.urls import URLPattern, path

from tracker.views import milestones

urlpatterns: list[URLPattern] = [
    path("", milestones.milestone_list, name="milestone_list"),
    path("new/", milestones.milestone_create, name="milestone_create"),
    path("issue/", milestones.issue_milestone, name="issue_milestone"),
    path("<str:milestone_id>/edit/", milestones.milestone_edit, name="milestone_edit"),
    path("<str:milestone_id>/close/", milestones.milestone_close, name="milestone_close"),
    path("<str:milestone_id>/reopen/", milestones.milestone_reopen, name="milestone_reopen"),
    path("<str:milestone_id>/resume/", milestones.milestone_resume, name="milestone_resume"),
]
