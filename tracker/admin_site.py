"""Tracker's admin site: Django's own, plus the DynamoDB pages under /admin/ddb/.

It lives outside the ``tracker.admin`` module on purpose. ``admin.site`` is a lazy object that
imports ``default_site`` on first use; were the class inside ``tracker.admin``, that import would
run the package's ``@admin.register`` calls in the middle of building the site, register them
on a first instance and then throw it away for a second one.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path


class TrackerAdminSite(admin.AdminSite):
    site_header = "Tracker administration"
    site_title = "Tracker admin"
    index_title = "Tenants, jobs and DynamoDB"

    def get_urls(self) -> list[URLResolver | URLPattern]:
        from tracker.urls import admin_ddb as ddb_urls

        # admin_view: staff only (others go to the login), never cached, CSRF-protected.
        wrapped = [path(str(p.pattern), self.admin_view(p.callback), name=p.name or "") for p in ddb_urls.urlpatterns]
        return [path("ddb/", include(wrapped)), *super().get_urls()]
