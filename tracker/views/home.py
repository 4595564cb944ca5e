"""Home and tenant switching."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tracker.selectors.tenants import membership_access, user_memberships


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Go to the last tenant used, else the first one; explain when there is none."""
    memberships = user_memberships(user=request.user)
    if not memberships:
        return render(request, "tracker/no_tenant.html")
    last = request.session.get("tenant")
    chosen = next((m for m in memberships if m.tenant.slug == last), memberships[0])
    return redirect("project_list", tenant=chosen.tenant.slug)


@login_required
@require_POST
def switch_tenant(request: HttpRequest) -> HttpResponse:
    membership = membership_access(user=request.user, tenant_slug=request.POST.get("tenant", ""))
    request.session["tenant"] = membership.tenant.slug
    return redirect("project_list", tenant=membership.tenant.slug)
