"""The root URLconf: every tracker page is under /t/<tenant>/, so the tenant is checked on every request.

One module per domain beside this one (projects, issues, orders, attachments, leaderboard);
the admin's DynamoDB pages are ``tracker.urls.admin_ddb``, mounted by ``tracker.admin_site``.
"""

from django.contrib import admin
from django.urls import include, path, re_path

import tracker.urls.converters  # noqa: F401  (registers pkey, num, attid before the includes use them)
from tracker.api import api
from tracker.api.problems import not_found as api_not_found
from tracker.views import home
from tracker.views.password_reset import ThrottledPasswordResetView

urlpatterns = [
    path("", home.home, name="home"),
    path("api/v1/", api.urls),
    re_path(r"^api/", api_not_found),  # any other path under /api/: a problem document, never the site's HTML 404
    path("switch/", home.switch_tenant, name="switch_tenant"),
    path("accounts/password_reset/", ThrottledPasswordResetView.as_view(), name="password_reset"),
    path("", include("tracker.urls.accounts")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("t/<slug:tenant>/issues/", include("tracker.urls.issue_lists")),
    path("t/<slug:tenant>/orders/", include("tracker.urls.orders")),
    path("t/<slug:tenant>/leaderboard/", include("tracker.urls.leaderboard")),
    path("t/<slug:tenant>/activity/", include("tracker.urls.activity")),
    path("t/<slug:tenant>/p/<pkey:project>/<num:number>/attachments/", include("tracker.urls.attachments")),
    path("t/<slug:tenant>/p/<pkey:project>/<num:number>/comments/", include("tracker.urls.comments")),
    path("t/<slug:tenant>/p/<pkey:project>/board/", include("tracker.urls.board")),
    path("t/<slug:tenant>/p/<pkey:project>/bulk/", include("tracker.urls.bulk")),
    path("t/<slug:tenant>/p/<pkey:project>/milestones/", include("tracker.urls.milestones")),
    path("t/<slug:tenant>/p/<pkey:project>/", include("tracker.urls.issues")),
    path("t/<slug:tenant>/labels/", include("tracker.urls.labels")),
    path("t/<slug:tenant>/views/", include("tracker.urls.saved_views")),
    path("t/<slug:tenant>/settings/notifications/", include("tracker.urls.notify_settings")),
    path("t/<slug:tenant>/settings/webhooks/", include("tracker.urls.webhooks")),
    path("t/<slug:tenant>/go/", include("tracker.urls.palette")),
    path("t/<slug:tenant>/", include("tracker.urls.assist")),
    path("t/<slug:tenant>/team/", include("tracker.urls.team")),
    path("t/<slug:tenant>/imports/", include("tracker.urls.imports")),
    path("t/<slug:tenant>/", include("tracker.urls.inbox")),
    path("t/<slug:tenant>/", include("tracker.urls.projects")),
]
