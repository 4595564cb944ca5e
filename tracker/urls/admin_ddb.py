"""URLs of the admin's DynamoDB pages (mounted at /admin/ddb/ by tracker.admin_site, each wrapped in admin_view)."""

from django.urls import URLPattern, path

from tracker.views.admin import capacity, hot_keys, items, jobs, staff, tables

urlpatterns: list[URLPattern] = [
    path("jobs/", jobs.jobs_view, name="ddb_jobs"),
    path("jobs/<uuid:task_id>/", jobs.job_view, name="ddb_job"),
    path("jobs/<uuid:task_id>/status.json", jobs.job_status_view, name="ddb_job_status"),
    path("capacity/", capacity.capacity_view, name="ddb_capacity"),
    path("hot-keys/", hot_keys.hot_keys_view, name="ddb_hot_keys"),
    # Tables and the item browser.
    path("tables/", tables.tables_view, name="ddb_tables"),
    path("tables/<str:table>/", items.browse_view, name="ddb_browse"),
    path("tables/<str:table>/item/", items.item_view, name="ddb_item"),
    path("tables/<str:table>/item/delete/", items.item_delete_view, name="ddb_item_delete"),
    # Staff "Tracker views" across tenants; a tenant's pages under t/ so no slug meets a fixed path.
    path("tracker/", staff.tracker_view, name="ddb_tracker"),
    path("tracker/orders/", staff.orders_view, name="ddb_tracker_orders"),
    path("tracker/orders/<int:number>/status/", staff.order_status_view, name="ddb_tracker_order_status"),
    path("tracker/attachments/", staff.attachments_view, name="ddb_tracker_attachments"),
    path("tracker/t/<slug:slug>/", staff.tenant_projects_view, name="ddb_tracker_tenant"),
    path("tracker/t/<slug:slug>/leaderboard/", staff.leaderboard_view, name="ddb_tracker_leaderboard"),
    path("tracker/t/<slug:slug>/<str:project_key>/", staff.project_issues_view, name="ddb_tracker_project"),
]
