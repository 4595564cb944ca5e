"""The team page: everyone sees who is in the team; owners add, invite, change roles and remove.

Every change is a POST of its own, refused (403) for members and viewers before anything is read;
a membership or invitation of another team is a 404. Refusals a person can fix (the last owner,
a person not found, already in the team) are form errors on the team page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from tracker.forms.team import InvitationForm, MemberAddForm, RoleForm, SignUpForm
from tracker.models import Invitation, Membership, Role
from tracker.selectors.tenants import invitation_access, invitations_pending, team_members, team_membership_access
from tracker.services import team as team_services
from tracker.views.base import tenant_view

NEW_LINK = "team_new_invitation_link"  # session key: the link just created, shown once
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
        }
    return render(request, "tracker/team/team.html", context, status=status)


def _owner(membership: Membership) -> None:
    if not membership.allows(Role.OWNER):
        raise PermissionDenied(NOT_OWNER)


def _first_message(error: ValidationError) -> str:
    return str(error.messages[0]) if error.messages else "This change is not possible."


@tenant_view
def team(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _page(request, membership)


@tenant_view
@require_POST
def member_add(request: HttpRequest, membership: Membership) -> HttpResponse:
    _owner(membership)
    form = MemberAddForm(request.POST)
    if form.is_valid():
        try:
            added = team_services.team_member_add(membership=membership, **form.cleaned_data)
        except ValidationError as error:
            form.add_error("who", _first_message(error))
        else:
            messages.success(request, f"{added.user.get_username()} joined as {added.get_role_display().lower()}.")
            return redirect("team", tenant=membership.tenant.slug)
    return _page(request, membership, add_form=form)


@tenant_view
@require_POST
def member_role(request: HttpRequest, membership: Membership, member: int) -> HttpResponse:
    _owner(membership)
    target = team_membership_access(tenant=membership.tenant, membership_id=member)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _page(request, membership, member_error="Choose owner, member or viewer.", member_error_id=member)
    try:
        changed = team_services.team_role_change(membership=membership, target=target, role=form.cleaned_data["role"])
    except ValidationError as error:
        return _page(request, membership, member_error=_first_message(error), member_error_id=member)
    messages.success(request, f"{changed.user.get_username()} is now {changed.get_role_display().lower()}.")
    return redirect("team", tenant=membership.tenant.slug)


@tenant_view
@require_POST
def member_remove(request: HttpRequest, membership: Membership, member: int) -> HttpResponse:
    _owner(membership)
    target = team_membership_access(tenant=membership.tenant, membership_id=member)
    try:
        team_services.team_member_remove(membership=membership, target=target)
    except ValidationError as error:
        return _page(request, membership, member_error=_first_message(error), member_error_id=member)
    if target.pk == membership.pk:
        messages.success(request, f"You left {membership.tenant.name}.")
        return redirect("home")
    messages.success(request, f"{target.user.get_username()} was removed from {membership.tenant.name}.")
    return redirect("team", tenant=membership.tenant.slug)


@tenant_view
@require_POST
def invitation_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    _owner(membership)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _page(request, membership, invite_form=form)
    invitation, token = team_services.invitation_create(membership=membership, **form.cleaned_data)
    path = reverse("team_join", kwargs={"tenant": membership.tenant.slug, "token": token})
    request.session[NEW_LINK] = request.build_absolute_uri(path)
    messages.success(request, f"Invitation created ({invitation.get_role_display().lower()}). Send the link below.")
    return redirect("team", tenant=membership.tenant.slug)


@tenant_view
@require_POST
def invitation_withdraw(request: HttpRequest, membership: Membership, invitation: int) -> HttpResponse:
    _owner(membership)
    found = invitation_access(tenant=membership.tenant, invitation_id=invitation)
    team_services.invitation_withdraw(membership=membership, invitation=found)
    messages.success(request, "Invitation withdrawn: its link no longer works.")
    return redirect("team", tenant=membership.tenant.slug)


def join(request: HttpRequest, tenant: str, token: str) -> HttpResponse:
    """An invitation link: sign up (or join as the signed-in person) into the team, once."""
    try:
        invitation = team_services.invitation_open(tenant_slug=tenant, token=token)
    except team_services.InvitationUnusable as unusable:
        return render(request, "tracker/team/join.html", {"reason": unusable.reason}, status=410)
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
            else:
                return _join_page(request, invitation, form)
        except ValidationError as error:
            return _join_page(request, invitation, form, error=_first_message(error))
        except team_services.InvitationUnusable as unusable:
            return render(request, "tracker/team/join.html", {"reason": unusable.reason}, status=410)
        messages.success(request, f"Welcome to {invitation.tenant.name}.")
        return redirect("project_list", tenant=invitation.tenant.slug)
    return _join_page(request, invitation, form)


def _join_page(
    request: HttpRequest, invitation: Invitation, form: SignUpForm | None, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {"invitation": invitation, "form": form, "error": error}
    return render(request, "tracker/team/join.html", context, status=status)
