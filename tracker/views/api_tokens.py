"""A person's API tokens (``/account/tokens/``): the list, a new one (shown once), revoking. SQL only: no DynamoDB.

A new token's secret is on the answer of the POST that made it and nowhere else (not in the session, never cached:
``Cache-Control: no-store``); the same form sent again makes nothing and says the token was shown once.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_POST

from ddbmodels.core.errors import InvalidInput, NotFound
from tracker.forms.api_tokens import TokenCreateForm
from tracker.selectors.api_tokens import user_tokens
from tracker.selectors.tenants import user_memberships
from tracker.services import api_tokens


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # login_required ran
    return request.user


@never_cache
@login_required
@sensitive_variables("created")
def tokens(request: HttpRequest) -> HttpResponse:
    """The person's tokens of every team; the form that makes one (its secret shown once, on this answer)."""
    user = _user(request)
    memberships = user_memberships(user=user)
    form = TokenCreateForm(request.POST if request.method == "POST" else None, memberships=memberships)
    created, resent, status = None, None, 200
    if request.method == "POST":
        status = 400
        if form.is_valid() and form.membership is not None:
            data = form.cleaned_data
            try:
                made = api_tokens.token_create(
                    membership=form.membership,
                    name=data["name"],
                    scope=data["scope"],
                    expires_days=data["expires_days"],
                    request_key=data["idempotency_key"],
                )
            except (PermissionDenied, InvalidInput, NotFound) as refused:  # the role changed, or they left, meanwhile
                form.add_error(None, str(refused))
            else:
                status = 200
                if made.secret:
                    created = made
                else:  # this form was sent before: its token was shown then, and only then
                    resent = made.token
                form = TokenCreateForm(memberships=memberships)
    context = {
        "tokens": user_tokens(user=user),
        "form": form,
        "created": created,
        "resent": resent,
        "memberships": memberships,
        "now": timezone.now(),
    }
    response = render(request, "tracker/accounts/tokens.html", context, status=status)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token: int) -> HttpResponse:
    """Revoke one of the person's tokens (another's: 404); calls with it are refused from then on."""
    revoked = api_tokens.token_revoke(user=_user(request), token_id=token)
    what = f"“{revoked.name}” ({revoked.hint})" if revoked.name else revoked.hint
    messages.success(request, f"Token {what} of {revoked.membership.tenant.name} is revoked: it works no more.")
    return redirect("api_tokens")
