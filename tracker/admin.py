"""Admin for the relational side: tenants and memberships."""

from django.contrib import admin

from tracker.models import Membership, Tenant


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    inlines = [MembershipInline]

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        # The slug is inside every DynamoDB key of the tenant: it cannot change once created.
        return ["slug"] if obj else []


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["role", "tenant"]
    search_fields = ["user__username", "tenant__slug"]
    autocomplete_fields = ["user", "tenant"]
