"""Tracker's admin site: Django's own, plus the DynamoDB pages under /admin/ddb/.

It lives outside the ``tracker.admin`` module on purpose. ``admin.site`` is a lazy object that
imports ``default_site`` on first use; were the class inside ``tracker.admin``, that import would
run the package's ``@admin.register`` calls in the middle of building the site, register them
on a first instance and then throw it away for a second one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, include, path

from tracker.services.permissions import staff_can_view

NO_VIEW = "Seeing DynamoDB data needs the tracker.view_tenant permission (or tracker.change_tenant)."


def view_permission_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """403 for staff who may not see tenants' DynamoDB data (tracker.view_tenant, or change_tenant)."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not staff_can_view(request.user):
            raise PermissionDenied(NO_VIEW)
        return view(request, *args, **kwargs)

    return checked


class TrackerAdminSite(admin.AdminSite):
    site_header = "Tracker administration"
    site_title = "Tracker admin"
    index_title = "Tenants, jobs and DynamoDB"

    def get_urls(self) -> list[URLResolver | URLPattern]:
        from tracker.urls import admin_ddb as ddb_urls

        # admin_view: staff only (others go to the login), never cached, CSRF-protected; then only
        # staff with the view permission see the data (each page checks the change permission itself).
        wrapped = [
            path(str(p.pattern), self.admin_view(view_permission_required(p.callback)), name=p.name or "")
            for p in ddb_urls.urlpatterns
        ]
        return [path("ddb/", include(wrapped)), *super().get_urls()]

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        return {**super().each_context(request), "ddb_can_view": staff_can_view(request.user)}
