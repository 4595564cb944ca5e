"""The admin's Tables page: every DynamoDB table of the app (name under the prefix), described."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from tracker.selectors.admin.tables import archived_tables, table_rows, where
from tracker.services.permissions import staff_can_edit_raw_items
from tracker.views.admin.pages import admin_page


def tables_view(request: HttpRequest) -> HttpResponse:
    archived, archive_error = archived_tables()
    context = {
        "rows": table_rows(),
        "archived": archived,
        "archive_error": archive_error,
        **where(),
        "can_change": staff_can_edit_raw_items(request.user),  # the item browser's edits and deletes
    }
    return admin_page(request, "admin/ddb/tables.html", "DynamoDB tables", context)
