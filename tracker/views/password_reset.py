"""Password reset, throttled: over PASSWORD_RESET_LIMIT requests per window from one address or for
one account, the request answers the same "check your e-mail" page as any other and sends nothing.
Only an account's confirmed address receives a reset link (tracker.services.addresses)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpResponse, HttpResponseRedirect

from tracker.login_throttle import reset_allowed
from tracker.services.addresses import address_confirmed


class ConfirmedAddressResetForm(PasswordResetForm):
    """Django's form, but a reset is mailed only to an address its account confirmed (issue 20, finding 3)."""

    def get_users(self, email: str) -> Iterator[Any]:
        return (user for user in super().get_users(email) if address_confirmed(user=user))


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    form_class = ConfirmedAddressResetForm

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if reset_allowed(self.request, form.cleaned_data["email"]):
            return super().form_valid(form)
        return HttpResponseRedirect(self.get_success_url())  # the same page, no e-mail
