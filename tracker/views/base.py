"""Shared view plumbing: the tenant from the URL, authorized once."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from tracker.selectors.tenants import membership_access

View = Callable[..., HttpResponse]


def tenant_view(view: View) -> View:
    """Require login, resolve ``<tenant>`` in the URL to the user's membership (404 if none)."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, tenant: str, *args: Any, **kwargs: Any) -> HttpResponse:
        membership = membership_access(user=request.user, tenant_slug=tenant)
        request.membership = membership  # type: ignore[attr-defined]
        request.session["tenant"] = membership.tenant.slug
        return view(request, membership, *args, **kwargs)

    return wrapper
