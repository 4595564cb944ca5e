"""Shared view plumbing: the tenant from the URL, authorized once; the version a posted form carries."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django import forms
from django.contrib.auth.decorators import login_required
from django.forms.utils import ErrorDict
from django.http import HttpRequest, HttpResponse

from tracker.exceptions import BadRequest
from tracker.selectors.tenants import membership_access

View = Callable[..., HttpResponse]
MISSING_VERSION = "The form is missing its version; reload the page."


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


def posted_version(request: HttpRequest, form_class: type[forms.Form]) -> int:
    """The ``version`` a posted form carries (the item's as its page was read); BadRequest (400) without one."""
    form = form_class(request.POST)
    if not form.is_valid():
        raise BadRequest(MISSING_VERSION)
    return int(form.cleaned_data["version"])


def previewed(request: HttpRequest) -> bool:
    """True when the form was sent by its "Preview" button (no JavaScript): show it back, save nothing."""
    return request.method == "POST" and "preview" in request.POST


FormT = TypeVar("FormT", bound=forms.Form)


def as_typed(form: FormT) -> FormT:
    """The bound ``form`` shown back as typed and not judged (a preview is no attempt to save: no errors).

    Its hidden fields (idempotency key, version, base) go back as they came, so the save that
    follows is the same submission it would have been.
    """
    vars(form)["_errors"] = ErrorDict()  # Django's cache of the form's errors: judged already, nothing found
    return form
