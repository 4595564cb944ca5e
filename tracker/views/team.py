"""The team page: everyone sees who is in the team; owners add, invite, change roles and remove.

Every change is a POST of its own, refused (403) for members and viewers before anything is read;
a membership or invitation of another team is a 404. Refusals a person can fix (the last owner,
a person not found, already in the team) are form errors on the team page.

An invitation link keeps its token out of every URL the server receives: it is
``/t/<team>/team/join/#<token>``, and the fragment never leaves the browser. On the join page a
static script (static/tracker/join.js) takes the token from the fragment, removes it from the
address bar and history, and POSTs it; without JavaScript the page asks for the code to be pasted.
The token then lives in the session (as Django's password-reset view keeps its token) and every
later step is the clean ``/t/<team>/team/join/``. Links made before (the token in the path) still
answer, as a redirect that moves the token into the session. Every join response says
``Referrer-Policy: same-origin`` (no-referrer would make Chromium send ``Origin: null`` with the
form, which CSRF refuses) and is never cached, and error reports hide the posted token.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from tracker.forms.team import InvitationForm, MemberAddForm, RoleForm, SignUpForm
from tracker.models import Invitation, Membership, Role
from tracker.selectors.tenants import invitation_access, invitations_pending, team_members, team_membership_access
from tracker.services import addresses, personal_invitations
from tracker.services import team as team_services
from tracker.views.base import View, tenant_view

NEW_LINK = "team_new_invitation_link"  # session key: the link just created, shown once
JOIN_HELD = "team_join_link"  # session key: {"tenant": slug, "token": …} of the invitation being used
NOT_OWNER = "Only owners of the team change who is in it."


def _page(request: HttpRequest, membership: Membership, status: int = 200, **forms: Any) -> HttpResponse:
    is_owner = membership.allows(Role.OWNER)
    context: dict[str, Any] = {
        "membership": membership,
        "members": team_members(tenant=membership.tenant),
        "is_owner": is_owner,
        "roles": Role.choices,
    }
    if is_owner:
        context |= {
            "add_form": forms.get("add_form") or MemberAddForm(),
            "invite_form": forms.get("invite_form") or InvitationForm(),
            "member_error": forms.get("member_error"),
            "member_error_id": forms.get("member_error_id"),
            "invitations": invitations_pending(
                tenant=membership.tenant, now=timezone.now(), max_age=team_services.INVITATION_MAX_AGE
            ),
            "new_link": request.session.pop(NEW_LINK, None),
            "asked": personal_invitations.personal_invitations_asked(membership=membership),
        }
    return render(request, "tracker/team/team.html", context, status=status)


def _owner_post(view: View) -> View:
    """A change to the team: a POST (405 otherwise) by an owner (403 for others, before anything is read)."""

    @wraps(view)
    def checked(request: HttpRequest, membership: Membership, *args: Any, **kwargs: Any) -> HttpResponse:
        if not membership.allows(Role.OWNER):
            raise PermissionDenied(NOT_OWNER)
        return view(request, membership, *args, **kwargs)

    return tenant_view(require_POST(checked))


def _first_message(error: ValidationError) -> str:
    return str(error.messages[0]) if error.messages else "This change is not possible."


def _member_error(request: HttpRequest, membership: Membership, member: int, message: str) -> HttpResponse:
    """The team page again, the refusal written beside the member it was about."""
    return _page(request, membership, member_error=message, member_error_id=member)


def _role(holder: Membership | Invitation) -> str:
    return str(holder.get_role_display()).lower()


def _done(request: HttpRequest, membership: Membership, message: str) -> HttpResponse:
    messages.success(request, message)
    return redirect("team", tenant=membership.tenant.slug)


@tenant_view
def team(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _page(request, membership)


@_owner_post
def member_add(request: HttpRequest, membership: Membership) -> HttpResponse:
    """Invite a person who has an account: one answer whoever it names (tracker.services.personal_invitations)."""
    form = MemberAddForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            personal_invitations.personal_invitation_create(
                membership=membership, who=data["who"], role=data["role"], request_key=data["idempotency_key"]
            )
        except ValidationError as error:  # too many requests this hour: the same refusal whatever the name
            form.add_error("who", _first_message(error))
        else:
            message = personal_invitations.asked_message(membership=membership, role=data["role"])
            return _done(request, membership, message)
    return _page(request, membership, add_form=form)


@_owner_post
def personal_invitation_withdraw(request: HttpRequest, membership: Membership, invitation: int) -> HttpResponse:
    if not personal_invitations.personal_invitation_withdraw(membership=membership, invitation_id=invitation):
        raise Http404("No such invitation.")
    return _done(request, membership, "Invitation withdrawn: it is no longer open.")


@_owner_post
def member_role(request: HttpRequest, membership: Membership, member: int) -> HttpResponse:
    target = team_membership_access(tenant=membership.tenant, membership_id=member)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _member_error(request, membership, member, "Choose owner, member or viewer.")
    try:
        changed = team_services.team_role_change(membership=membership, target=target, role=form.cleaned_data["role"])
    except ValidationError as error:
        return _member_error(request, membership, member, _first_message(error))
    said = f"{changed.user.get_username()} is now {_role(changed)}."
    return _done(request, membership, said + _links_stop(target, changed.user.get_username()))


@_owner_post
def member_remove(request: HttpRequest, membership: Membership, member: int) -> HttpResponse:
    target = team_membership_access(tenant=membership.tenant, membership_id=member)
    try:
        team_services.team_member_remove(membership=membership, target=target)
    except ValidationError as error:
        return _member_error(request, membership, member, _first_message(error))
    if target.pk == membership.pk:
        messages.success(request, f"You left {membership.tenant.name}." + _links_stop(target, "you"))
        return redirect("home")
    said = f"{target.user.get_username()} was removed from {membership.tenant.name}."
    return _done(request, membership, said + _links_stop(target, target.user.get_username()))


def _links_stop(before: Membership, who: str) -> str:
    """What an owner's stepping down or leaving did to their invitations (withdrawn: tracker.models' receivers)."""
    return f" The invitation links {who} made no longer work." if before.role == Role.OWNER else ""


@_owner_post
def invitation_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _page(request, membership, invite_form=form)
    try:
        invitation, token = team_services.invitation_create(membership=membership, **form.cleaned_data)
    except ValidationError as error:  # the team's offboarding began: no link is made
        form.add_error(None, _first_message(error))
        return _page(request, membership, invite_form=form)
    path = reverse("team_join", kwargs={"tenant": membership.tenant.slug})
    request.session[NEW_LINK] = f"{request.build_absolute_uri(path)}#{token}"  # the fragment is never sent
    return _done(request, membership, f"Invitation created ({_role(invitation)}). Send the link below.")


@_owner_post
def invitation_withdraw(request: HttpRequest, membership: Membership, invitation: int) -> HttpResponse:
    found = invitation_access(tenant=membership.tenant, invitation_id=invitation)
    team_services.invitation_withdraw(membership=membership, invitation=found)
    return _done(request, membership, "Invitation withdrawn: its link no longer works.")


def _private(response: HttpResponse) -> HttpResponse:
    """A join response: a Referer only to this site (whose forms need the Origin), never cached.

    The page's own URL holds no token (the fragment is never in a Referer; a link in the path is
    redirected before any page is shown), and nothing leaves the site with even that.
    """
    response["Referrer-Policy"] = "same-origin"
    return response


def _code(pasted: str) -> str:
    """The token in what was pasted: the code itself, or a whole link (new ``…/join/#code``, old ``…/join/code/``)."""
    pasted = pasted.strip()
    if "#" in pasted:
        return pasted.rsplit("#", 1)[1].strip()
    if "/team/join/" in pasted:
        return pasted.split("/team/join/", 1)[1].strip("/ ")
    return pasted


def _unusable(request: HttpRequest, reason: str) -> HttpResponse:
    request.session.pop(JOIN_HELD, None)
    return render(request, "tracker/team/join.html", {"reason": reason}, status=410)


@never_cache
def join_link(request: HttpRequest, tenant: str, token: str) -> HttpResponse:
    """A link made before tokens left the path: keep its token in the session, go on at the clean URL."""
    request.session[JOIN_HELD] = {"tenant": tenant, "token": token}
    return _private(redirect("team_join", tenant=tenant))


@never_cache
@sensitive_post_parameters("token", "password1", "password2")
def join(request: HttpRequest, tenant: str) -> HttpResponse:
    return _private(_join(request, tenant))


def _join(request: HttpRequest, tenant: str) -> HttpResponse:
    """An invitation link: sign up (or join as the signed-in person) into the team, once."""
    if request.method == "POST" and "token" in request.POST:  # the code, from the link's fragment or pasted
        code = _code(request.POST["token"])
        if not code:
            return render(request, "tracker/team/join_code.html", {"tenant": tenant, "empty": True}, status=400)
        request.session[JOIN_HELD] = {"tenant": tenant, "token": code}
        return redirect("team_join", tenant=tenant)
    held = request.session.get(JOIN_HELD)
    if not isinstance(held, dict) or held.get("tenant") != tenant or not held.get("token"):
        status = 400 if request.method == "POST" else 200
        return render(request, "tracker/team/join_code.html", {"tenant": tenant}, status=status)
    try:
        invitation = team_services.invitation_open(tenant_slug=tenant, token=str(held["token"]))
    except team_services.InvitationUnusable as unusable:
        return _unusable(request, unusable.reason)
    signed_in = isinstance(request.user, User) and request.user.is_authenticated
    form: SignUpForm | None = (
        None if signed_in else SignUpForm(request.POST or None, initial={"email": invitation.email})
    )
    if request.method == "POST":
        try:
            if isinstance(request.user, User) and signed_in:
                team_services.invitation_accept(invitation=invitation, user=request.user)
            elif form is not None and form.is_valid():
                data = form.cleaned_data
                user = team_services.invitation_sign_up(
                    invitation=invitation, username=data["username"], email=data["email"], password=data["password1"]
                )
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                addresses.confirmation_send(user=user)  # nothing is matched or mailed to it until it is confirmed
            else:
                return _join_page(request, invitation, form)
        except ValidationError as error:
            return _join_page(request, invitation, form, error=_first_message(error))
        except team_services.InvitationUnusable as unusable:
            return _unusable(request, unusable.reason)
        request.session.pop(JOIN_HELD, None)
        messages.success(request, f"Welcome to {invitation.tenant.name}.")
        return redirect("project_list", tenant=invitation.tenant.slug)
    return _join_page(request, invitation, form)


def _join_page(
    request: HttpRequest, invitation: Invitation, form: SignUpForm | None, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {"invitation": invitation, "form": form, "error": error}
    return render(request, "tracker/team/join.html", context, status=status)
