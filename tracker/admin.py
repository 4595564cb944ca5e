"""Admin for the relational side: tenants, memberships and retired slugs; offboarding as an action."""

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html_join

# django-celery-beat's periodic tasks under the job rights; API tokens (staff find and revoke them)
from tracker import admin_schedules, admin_tokens  # noqa: F401
from tracker.models import Membership, RetiredSlug, Tenant
from tracker.services import offboarding_exports, team_leftovers
from tracker.services.admin.jobs import offboarding_queue
from tracker.services.permissions import NO_DESTRUCTIVE_JOBS, staff_can_run_destructive_jobs


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    inlines = [MembershipInline]
    actions = ["offboard"]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # No bulk delete: a tenant row goes only once its data is offboarded, one at a time.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_offboard_permission(self, request: HttpRequest) -> bool:
        """Offboarding deletes a team's data: tracker.delete_tenant and audit.run_destructive_jobs.

        (Django's action permissions are any-of, so both are checked here; renaming needs only change_tenant.)
        """
        return self.has_delete_permission(request) and staff_can_run_destructive_jobs(request.user)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        # Django drops an action the user may not run with a "No action selected" redirect; a forged
        # Offboard is a 403 that changes nothing instead.
        forged = request.method == "POST" and request.POST.get("action") == "offboard"
        if forged and not self.has_offboard_permission(request):
            raise PermissionDenied(NO_DESTRUCTIVE_JOBS)
        return super().changelist_view(request, extra_context)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> HttpResponse:
        tenant = self.get_object(request, object_id)
        problem = tenant.data_left() if tenant is not None else None
        if problem:
            self.message_user(request, f"{tenant} was not deleted. {problem}", messages.ERROR)
            return redirect("admin:tracker_tenant_change", object_id)
        return super().delete_view(request, object_id, extra_context)

    @admin.action(
        description="Offboard: export, verify, then delete all DynamoDB data and files",
        permissions=["offboard"],
    )
    def offboard(self, request: HttpRequest, queryset: QuerySet[Tenant]) -> HttpResponse | None:
        """Asks first; once confirmed, queues one offboarding job per tenant (progress on the job page).

        Each start is in the staff audit (who, when, the team), written before the job is queued.
        """
        if request.POST.get("confirmed") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "title": "Offboard tenants?",
                "tenants": queryset,
                "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/tracker/tenant/offboard_confirmation.html", context)
        started = [(tenant, offboarding_queue(slug=tenant.slug, by=request.user)) for tenant in queryset]  # type: ignore[arg-type]
        for tenant, task_id in started:
            self.message_user(request, f"Offboarding of {tenant.slug} queued as {task_id}.", messages.SUCCESS)
        if len(started) == 1:
            return HttpResponseRedirect(reverse("admin:ddb_job", kwargs={"task_id": started[0][1]}))
        return None

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        # The slug is inside every DynamoDB key of the tenant: it cannot change once created.
        return ["slug"] if obj else []


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["role", "tenant"]
    search_fields = ["user__username", "tenant__slug"]
    autocomplete_fields = ["user", "tenant"]


@admin.register(RetiredSlug)
class RetiredSlugAdmin(admin.ModelAdmin):
    """Read-only: the record that keeps a slug from being reused outlives its tenant."""

    list_display = ["slug", "reason", "retired_at", "offboarded_at", "archive", "export_available"]
    list_filter = ["reason"]
    search_fields = ["slug"]
    readonly_fields = ["export_available", "removed_elsewhere"]

    @admin.display(description="team's export available")
    def export_available(self, retired: RetiredSlug) -> str:
        """Until when the team's export is kept (``OFFBOARDING_EXPORT_DAYS`` after offboarding), or when it went."""
        until = offboarding_exports.export_available_until(retired)
        if until is not None:
            return f"until {until:%Y-%m-%d %H:%M} UTC"
        deleted = (retired.report or {}).get("export_deleted")
        if deleted:
            return f"deleted on {deleted['at'][:10]} ({deleted['days']} days after offboarding)"
        return "—"

    @admin.display(description="removed besides its data")
    def removed_elsewhere(self, retired: RetiredSlug) -> str:
        """Per place (job checkpoints and results, admin log, Redis, files), what the last run removed."""
        places = (retired.report or {}).get("places") or {}
        lines = team_leftovers.describe(places)
        return format_html_join("", '<div class="removed-place">{}: {}</div>', lines) if lines else "—"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
