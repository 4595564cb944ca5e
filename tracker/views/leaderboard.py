"""The leaderboard page: the tenant's top 10 (or 50) and where you stand."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ddbmodels.scores import POINTS
from tracker.exceptions import BadRequest
from tracker.forms.issues import PRIORITY_LABELS
from tracker.forms.leaderboard import BAD_TOP, TopForm
from tracker.models import Membership
from tracker.selectors.leaderboard import DEFAULT_TOP, TOP_CHOICES, leaderboard_standing, leaderboard_top
from tracker.views.base import tenant_view


@tenant_view
@require_GET
def leaderboard(request: HttpRequest, membership: Membership) -> HttpResponse:
    form = TopForm(request.GET)
    if not form.is_valid():
        raise BadRequest(BAD_TOP)
    k = form.cleaned_data["top"] or DEFAULT_TOP
    tenant = membership.tenant.slug
    top = leaderboard_top(tenant=tenant, k=k)
    standing = leaderboard_standing(tenant=tenant, username=request.user.get_username(), top=top)
    return render(
        request,
        "tracker/leaderboard/leaderboard.html",
        {
            "membership": membership,
            "top": top,
            "k": k,
            "other_k": next(other for other in TOP_CHOICES if other != k),
            "standing": standing,
            "points": [(PRIORITY_LABELS[p], n) for p, n in POINTS.items()],
            "cache_seconds": settings.LEADERBOARD_CACHE_SECONDS,
        },
    )
