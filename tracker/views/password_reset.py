"""Password reset, throttled: over PASSWORD_RESET_LIMIT requests per window from one address or for
one account, the request answers the same "check your e-mail" page as any other and sends nothing."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpResponse, HttpResponseRedirect

from tracker.login_throttle import reset_allowed


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if reset_allowed(self.request, form.cleaned_data["email"]):
            return super().form_valid(form)
        return HttpResponseRedirect(self.get_success_url())  # the same page, no e-mail
