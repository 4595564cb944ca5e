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
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import NoReverseMatch, URLPattern, URLResolver, include, path, reverse

from tracker.services.permissions import (
    staff_can_change,
    staff_can_edit_raw_items,
    staff_can_run_destructive_jobs,
    staff_can_view,
)

NO_VIEW = "Seeing DynamoDB data needs the tracker.view_tenant permission (or tracker.change_tenant)."
# The DynamoDB pages in the admin's sidebar, in this order (a page whose URL is not there is left out).
SIDEBAR_PAGES = (
    ("ddb_tables", "Tables and items"),
    ("ddb_jobs", "Maintenance jobs"),
    ("ddb_capacity", "Capacity"),
    ("ddb_hot_keys", "Hot partition keys"),
    ("ddb_tracker", "Tenants"),
    ("ddb_tracker_orders", "Orders"),
    ("ddb_tracker_attachments", "Attachments in flight"),
)


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
        home = path("ddb/", self.admin_view(self.ddb_home), name="ddb_home")
        return [home, path("ddb/", include(wrapped)), *super().get_urls()]

    def ddb_home(self, request: HttpRequest) -> HttpResponse:
        """/admin/ddb/ (the sidebar's DynamoDB heading): the admin index's DynamoDB section."""
        return HttpResponseRedirect(reverse(f"{self.name}:index") + "#ddb-module")

    def ddb_sidebar_app(self) -> dict[str, Any]:
        """The DynamoDB pages as one more "application" of the admin's sidebar (links only, no models)."""
        pages = []
        for url_name, label in SIDEBAR_PAGES:
            try:
                url = reverse(f"{self.name}:{url_name}")
            except NoReverseMatch:
                continue
            pages.append({"name": label, "object_name": url_name, "admin_url": url, "view_only": True, "perms": {}})
        return {
            "name": "DynamoDB",
            "app_label": "ddb",
            "app_url": reverse(f"{self.name}:ddb_home"),
            "has_module_perms": True,
            "models": pages,
        }

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        context = super().each_context(request)
        can_view = staff_can_view(request.user)
        if can_view:  # the sidebar (available_apps) only: the index lists these pages in its own section
            context["available_apps"] = [*context["available_apps"], self.ddb_sidebar_app()]
        # what the index advertises: read-only staff are offered what they can do (browse, watch), not edits or starts
        return {
            **context,
            "ddb_can_view": can_view,
            "ddb_can_change": can_view and staff_can_change(request.user),  # read-only jobs, orders
            "ddb_can_edit_items": can_view and staff_can_edit_raw_items(request.user),
            "ddb_can_run_destructive": can_view and staff_can_run_destructive_jobs(request.user),
        }
