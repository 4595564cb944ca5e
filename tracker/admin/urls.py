"""URLs of the admin's DynamoDB pages (mounted at /admin/ddb/, each wrapped in admin_view)."""

from django.urls import URLPattern, path

from tracker.admin import capacity as capacity_pages
from tracker.admin import jobs as job_pages
from tracker.admin import tables as table_pages
from tracker.admin.browser import views as browser_pages
from tracker.admin.staff import views as tracker_pages

urlpatterns: list[URLPattern] = [
    path("jobs/", job_pages.jobs_view, name="ddb_jobs"),
    path("jobs/<uuid:task_id>/", job_pages.job_view, name="ddb_job"),
    path("jobs/<uuid:task_id>/status.json", job_pages.job_status_view, name="ddb_job_status"),
    path("capacity/", capacity_pages.capacity_view, name="ddb_capacity"),
    # Tables and the item browser.
    path("tables/", table_pages.tables_view, name="ddb_tables"),
    path("tables/<str:table>/", browser_pages.browse_view, name="ddb_browse"),
    path("tables/<str:table>/item/", browser_pages.item_view, name="ddb_item"),
    path("tables/<str:table>/item/delete/", browser_pages.item_delete_view, name="ddb_item_delete"),
    # Staff "Tracker views" across tenants; a tenant's pages under t/ so no slug meets a fixed path.
    path("tracker/", tracker_pages.tracker_view, name="ddb_tracker"),
    path("tracker/orders/", tracker_pages.orders_view, name="ddb_tracker_orders"),
    path("tracker/attachments/", tracker_pages.attachments_view, name="ddb_tracker_attachments"),
    path("tracker/t/<slug:slug>/", tracker_pages.tenant_projects_view, name="ddb_tracker_tenant"),
    path("tracker/t/<slug:slug>/leaderboard/", tracker_pages.leaderboard_view, name="ddb_tracker_leaderboard"),
    path("tracker/t/<slug:slug>/<str:project_key>/", tracker_pages.project_issues_view, name="ddb_tracker_project"),
]
