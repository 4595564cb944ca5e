"""URLs of the labels pages, under /t/<tenant>/labels/."""

from django.urls import path

from tracker.views import labels

urlpatterns = [
    path("", labels.label_list, name="label_list"),
    path("new/", labels.label_create, name="label_create"),
    path("<str:label>/edit/", labels.label_edit, name="label_edit"),
    path("<str:label>/rename/", labels.label_rename, name="label_rename"),
    path("<str:label>/delete/", labels.label_delete, name="label_delete"),
    path("<str:label>/resume/", labels.label_resume, name="label_resume"),
    path("<str:label>/progress/", labels.label_progress, name="label_progress"),
]
