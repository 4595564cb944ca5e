"""URLs: every tracker page is under /t/<tenant>/, so the tenant is checked on every request."""

from django.contrib import admin
from django.urls import include, path, register_converter

from tracker.views import home, issues, projects


class ProjectKeyConverter:
    regex = "[A-Z][A-Z0-9]{1,9}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ProjectKeyConverter, "pkey")

tenant_patterns = [
    path("", projects.project_list, name="project_list"),
    path("projects/new/", projects.project_create, name="project_create"),
    path("p/<pkey:project>/", issues.issue_list, name="issue_list"),
    path("p/<pkey:project>/new/", issues.issue_create, name="issue_create"),
    path("p/<pkey:project>/<int:number>/", issues.issue_detail, name="issue_detail"),
    path("p/<pkey:project>/<int:number>/edit/", issues.issue_edit, name="issue_edit"),
    path("p/<pkey:project>/<int:number>/status/", issues.issue_status, name="issue_status"),
    path("p/<pkey:project>/<int:number>/delete/", issues.issue_delete, name="issue_delete"),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("switch/", home.switch_tenant, name="switch_tenant"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("t/<slug:tenant>/", include(tenant_patterns)),
]
