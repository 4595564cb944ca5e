"""Saved views: the list of one's own and the team's shared views, save one (once), open, rename, share, delete."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from ddbmodels.issues import PROJECT_KEY_RE
from ddbmodels.preferences import ViewEdit
from tracker.exceptions import BadRequest
from tracker.forms.preferences import ViewChangeForm, ViewSaveForm
from tracker.models import Membership, Role
from tracker.selectors.preferences import view_access, view_menu
from tracker.selectors.projects import project_access
from tracker.services import preferences as services
from tracker.views.base import tenant_view


def view_url(tenant: str, query: str, project: str | None) -> str:
    """The list a view opens: the project's or the team's, with the view's query."""
    url = (
        reverse("issue_list", kwargs={"tenant": tenant, "project": project})
        if project
        else reverse("tenant_issues", kwargs={"tenant": tenant})
    )
    return f"{url}?{urlencode({'q': query})}" if query else url


@tenant_view
def view_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _list_page(request, membership)


def _list_page(request: HttpRequest, membership: Membership, *, refused: str = "", status: int = 200) -> HttpResponse:
    slug = membership.tenant.slug
    menu = view_menu(membership=membership)
    return render(
        request,
        "tracker/saved_views/list.html",
        {
            "membership": membership,
            "mine": [(v, view_url(slug, v.query, v.project)) for v in menu.mine],
            "shared": [(v, view_url(slug, v.query, v.project)) for v in menu.shared],
            "can_share": membership.allows(services.SHARE_NEEDS),
            "can_take_out": membership.allows(Role.OWNER),
            "refused": refused,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
@tenant_view
def view_new(request: HttpRequest, membership: Membership) -> HttpResponse:
    """Save the list's query (``?q=…&project=WEB`` from its "Save this view" link) under a name."""
    slug = membership.tenant.slug
    if request.method == "POST":
        form = ViewSaveForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            if data["project"]:
                project_access(tenant=membership.tenant, key=data["project"])  # 404 for another team's or none
            try:
                view, created = services.view_save(
                    membership=membership,
                    view_id=data["idempotency_key"],
                    name=data["name"],
                    query=data["q"],
                    project=data["project"],
                )
            except services.BadViewQuery as problem:
                form.add_error("q", str(problem))
            except services.ViewLimit as problem:
                form.add_error(None, str(problem))
            else:
                if created:
                    messages.success(request, f"Saved the view “{view.name}”: it is in the Views menu.")
                else:
                    messages.info(request, f"This form saved “{view.name}” already; nothing was saved twice.")
                return redirect(view_url(slug, view.query, view.project))
    else:
        form = ViewSaveForm(initial={"q": request.GET.get("q", ""), "project": request.GET.get("project", "")})
    project = form["project"].value() or ""
    project = project if PROJECT_KEY_RE.match(project) else ""  # a key not understood is named by the form error
    return render(
        request,
        "tracker/saved_views/new.html",
        {
            "membership": membership,
            "form": form,
            "project": project,
            "back": view_url(slug, form["q"].value() or "", project or None),
        },
        status=400 if form.is_bound else 200,
    )


@tenant_view
def view_open(request: HttpRequest, membership: Membership, view_id: str) -> HttpResponse:
    """A view opens as its list (the query in the address, so the list's own links and paging work)."""
    view = view_access(membership=membership, view_id=view_id)
    return redirect(view_url(membership.tenant.slug, view.query, view.project))


@require_POST
@tenant_view
def view_change(request: HttpRequest, membership: Membership, view_id: str) -> HttpResponse:
    """Rename, share, unshare or delete one's own view: a stale version changes nothing (409).

    An owner may also unshare a teammate's shared view: it leaves the team's menu, its author keeps it.
    """
    view = view_access(membership=membership, view_id=view_id)  # 404: neither one's own nor shared
    form = ViewChangeForm(request.POST)
    if view.author != membership.user.get_username():
        # a teammate's shared view is theirs to change; an owner only takes it out of the team's menu
        if not (membership.allows(Role.OWNER) and form.is_valid() and form.cleaned_data["action"] == "unshare"):
            raise Http404("Only its author changes a view.")
        taken = services.view_unshare_team(  # ChangedSinceRead: the 409 page, nothing changed
            membership=membership, view_id=view_id, expected_version=form.cleaned_data["version"]
        )
        messages.success(request, f"“{taken.name}” by {taken.author} is no longer in the team’s menu; they keep it.")
        return redirect("saved_views", tenant=membership.tenant.slug)
    if not form.is_valid():
        raise BadRequest("; ".join(str(e) for errors in form.errors.values() for e in errors))
    data = form.cleaned_data
    action = data["action"]
    try:
        edit = ViewEdit(
            expected_version=data["version"],
            name=data["name"] if action == "rename" else None,
            shared={"share": True, "unshare": False}.get(action),
            delete=action == "delete",
        )
        after = services.view_change(membership=membership, view_id=view_id, edit=edit)  # ChangedSinceRead: 409
    except services.ViewLimit as problem:
        return _list_page(request, membership, refused=str(problem), status=409)
    done = {
        "rename": "Renamed the view to “{}”.",
        "share": "Shared “{}” with the team.",
        "unshare": "“{}” is yours alone again.",
    }
    if after is None:
        messages.success(request, "Deleted the view.")
    else:
        messages.success(request, done[action].format(after.name))
    return redirect("saved_views", tenant=membership.tenant.slug)
