"""The staff audit in the admin: read only, for superusers and staff who may see tenants' data."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from tracker.audit.models import AuditEntry
from tracker.services.permissions import staff_can_view


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Nobody adds, changes or deletes a row here: they are written by the changes they record."""

    list_display = ["at", "username", "action", "tenant", "target", "outcome", "finished_at"]
    list_filter = ["action", "outcome"]
    search_fields = ["username", "tenant", "target"]
    date_hierarchy = "at"
    fields = ("at", "username", "action", "tenant", "target", "what_changed", "outcome", "finished_at", "result")
    readonly_fields = fields

    @admin.display(description="What changed / parameters")
    def what_changed(self, entry: AuditEntry) -> str:
        return format_html("<pre>{}</pre>", json.dumps(entry.details, indent=2, ensure_ascii=False, sort_keys=True))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return staff_can_view(request.user) or super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
