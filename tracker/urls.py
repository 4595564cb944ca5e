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


class IssueNumberConverter:
    """1 to 15 digits: anything longer cannot be an issue number (and DynamoDB caps N at 38 digits)."""

    regex = "[1-9][0-9]{0,14}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))


register_converter(ProjectKeyConverter, "pkey")
register_converter(IssueNumberConverter, "num")

tenant_patterns = [
    path("", projects.project_list, name="project_list"),
    path("projects/new/", projects.project_create, name="project_create"),
    path("p/<pkey:project>/", issues.issue_list, name="issue_list"),
    path("p/<pkey:project>/new/", issues.issue_create, name="issue_create"),
    path("p/<pkey:project>/<num:number>/", issues.issue_detail, name="issue_detail"),
    path("p/<pkey:project>/<num:number>/edit/", issues.issue_edit, name="issue_edit"),
    path("p/<pkey:project>/<num:number>/status/", issues.issue_status, name="issue_status"),
    path("p/<pkey:project>/<num:number>/delete/", issues.issue_delete, name="issue_delete"),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("switch/", home.switch_tenant, name="switch_tenant"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("t/<slug:tenant>/orders/", include("tracker.urls_orders")),
    path("t/<slug:tenant>/leaderboard/", include("tracker.urls_leaderboard")),
    path("t/<slug:tenant>/p/<pkey:project>/<num:number>/attachments/", include("tracker.urls_attachments")),
    path("t/<slug:tenant>/", include(tenant_patterns)),
]
