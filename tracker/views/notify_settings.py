"""One's notification settings in a team: participating, watching or off, and e-mail on or off."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from tracker.forms.preferences import NotifyForm
from tracker.models import Membership
from tracker.selectors.preferences import my_notify_setting
from tracker.services import preferences as services
from tracker.views.base import tenant_view


def window_words(seconds: int) -> str:
    """``300`` → "5 minutes", ``60`` → "minute", ``90`` → "90 seconds"."""
    if seconds % 60:
        return f"{seconds} seconds"
    minutes = seconds // 60
    return "minute" if minutes == 1 else f"{minutes} minutes"


@require_http_methods(["GET", "POST"])
@tenant_view
def notify_settings(request: HttpRequest, membership: Membership) -> HttpResponse:
    current = my_notify_setting(membership=membership)
    if request.method == "POST":
        form = NotifyForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            services.notify_set(  # ChangedSinceRead: the 409 page (another tab saved first), nothing changed
                membership=membership, level=data["level"], email=data["email"], expected_version=data["version"]
            )
            messages.success(request, "Saved your notification settings.")
            return redirect("notify_settings", tenant=membership.tenant.slug)
    else:
        form = NotifyForm(initial={"level": current.level, "email": current.email, "version": current.version})
    cached = window_words(settings.PROJECT_CACHE_SECONDS)
    return render(
        request,
        "tracker/notify_settings.html",
        {
            "membership": membership,
            "form": form,
            "window": window_words(settings.NOTIFY_EMAIL_WINDOW_SECONDS),
            # how long another process may serve the settings it cached when a save could not tell Redis
            "cache_window": "a minute" if cached == "minute" else cached,
        },
        status=400 if form.is_bound else 200,
    )
