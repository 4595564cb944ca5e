"""A person's own account: their e-mail address (confirmed by a link) and the invitations they received.

A confirmation link is ``/accounts/email/confirm/#<token>``: the fragment never reaches the server
(nor an access log or a Referer). The page's static script (static/tracker/confirm.js) takes it off
the address bar and POSTs it; without JavaScript the page asks for it to be pasted. The token then
lives in the session and the page, at the clean URL, has one button (nothing changes before it is
pressed); confirming needs the session of the account it was sent for (signing in keeps the token).
Links made before (``?token=`` in the query) still work: the token moves into the session.
Accepting or declining an invitation is a POST; another person's invitation, or one no longer open, is a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from tracker.forms.accounts import AddressChangeForm, ConfirmForm
from tracker.services import addresses, personal_invitations


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # login_required ran
    return request.user


@login_required
def address(request: HttpRequest) -> HttpResponse:
    """The account's address and whether it is confirmed; change it, or send the link again."""
    user = _user(request)
    form = AddressChangeForm(request.POST or None, user=user)
    if request.method == "POST":
        if request.POST.get("action") == "resend":
            sent = addresses.confirmation_send(user=user)
            if sent:
                messages.success(request, f"We sent a confirmation link to {user.email}.")
            else:
                messages.info(
                    request,
                    "Nothing was sent: the address is confirmed already, or too many links were sent this hour.",
                )
            return redirect("address")
        if form.is_valid():
            sent = addresses.address_change(user=user, email=form.cleaned_data["email"])
            messages.success(
                request,
                f"Your address is now {user.email}. "
                + (
                    "Open the link we sent there to confirm it." if sent else "Send yourself a confirmation link below."
                ),
            )
            return redirect("address")
    context = {"form": form, "confirmed": addresses.address_confirmed(user=user)}
    return render(request, "tracker/accounts/address.html", context, status=400 if form.errors else 200)


CONFIRM_HELD = "address_confirm_token"  # session key: the token of the confirmation link being used


def _code(pasted: str) -> str:
    """The token in what was pasted: the code itself or a whole link (``…/confirm/#code``, old ``…?token=code``)."""
    pasted = pasted.strip()
    if "#" in pasted:
        return pasted.rsplit("#", 1)[1].strip()
    if "token=" in pasted:
        return pasted.split("token=", 1)[1].split("&", 1)[0].strip()
    return pasted


@never_cache
@sensitive_post_parameters("token", "code")
def address_confirm(request: HttpRequest) -> HttpResponse:
    response = _address_confirm(request)
    response["Referrer-Policy"] = "same-origin"  # the page's URL holds no token; nothing leaves the site
    return response


def _address_confirm(request: HttpRequest) -> HttpResponse:
    """A confirmation link: its token (from the fragment, pasted, or an old link's query) moves into the
    session and the page is the clean URL; a button POSTs; ConfirmationUnusable is a 410 page saying why."""
    if request.method == "GET" and "token" in request.GET:  # a link made before the token left the query
        request.session[CONFIRM_HELD] = request.GET["token"]
        return redirect("address_confirm")
    if request.method == "POST" and "code" in request.POST:  # the link's fragment, posted by confirm.js, or pasted
        code = _code(request.POST["code"])
        if not code:
            return render(request, "tracker/accounts/confirm_code.html", {"empty": True}, status=400)
        request.session[CONFIRM_HELD] = code  # kept when signing in (login keeps the session's data)
        return redirect("address_confirm")
    held = str(request.session.get(CONFIRM_HELD) or "")
    if request.method == "GET" and not held:  # signed out too: the script posts the fragment before signing in
        return render(request, "tracker/accounts/confirm_code.html")
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    user = _user(request)
    form = ConfirmForm(request.POST if "token" in request.POST else {"token": held})
    if not form.is_valid():
        return render(request, "tracker/accounts/confirm.html", {"reason": "This link is not complete."}, status=410)
    if request.method == "POST":
        request.session.pop(CONFIRM_HELD, None)
        try:
            email = addresses.address_confirm(user=user, token=form.cleaned_data["token"])
        except addresses.ConfirmationUnusable as unusable:
            return render(request, "tracker/accounts/confirm.html", {"reason": unusable.reason}, status=410)
        messages.success(request, f"Thank you: {email} is confirmed.")
        return redirect("address")
    return render(request, "tracker/accounts/confirm.html", {"email": user.email})


@login_required
def invitations(request: HttpRequest) -> HttpResponse:
    """The invitations this person received and may still answer."""
    received = personal_invitations.personal_invitations_received(user=_user(request))
    return render(request, "tracker/accounts/invitations.html", {"received": received})


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation: int) -> HttpResponse:
    """Accept (join with the invitation's role) or decline; another's or a closed invitation is a 404."""
    user = _user(request)
    found = personal_invitations.personal_invitation_received_access(user=user, invitation_id=invitation)
    if found is None:
        raise Http404("No such invitation.")
    if request.POST.get("answer") == "accept":
        try:
            personal_invitations.personal_invitation_accept(invitation=found, user=user)
        except ValidationError as error:
            messages.error(request, str(error.messages[0]))
            return redirect("invitations")
        messages.success(request, f"Welcome to {found.tenant.name}.")
        return redirect("project_list", tenant=found.tenant.slug)
    if request.POST.get("answer") == "decline":
        personal_invitations.personal_invitation_decline(invitation=found, user=user)
        messages.success(request, f"You declined the invitation to {found.tenant.name}.")
        return redirect("invitations")
    return HttpResponse("Answer accept or decline.", status=400, content_type="text/plain")
