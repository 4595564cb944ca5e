"""The labels a team manages (``/t/<team>/labels/``): members create, edit, rename and delete; viewers read.

Rename and delete go through a confirm page that says how many issues follow and what it costs (and,
for a delete, which issues lose the label); the change runs in the request for a few issues, in a
background job for more (progress on the labels page, which offers to resume a stopped one).
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from ddbmodels.labels import Label
from tracker.forms.idempotency import new_idempotency_key
from tracker.forms.labels import ConfirmForm, LabelForm, RenameForm
from tracker.models import Membership
from tracker.selectors import labels as select
from tracker.services import labels as service
from tracker.views.base import tenant_view

SHOWN_ISSUES = 25  # the delete page lists this many of the issues that lose the label


def _member(membership: Membership) -> None:
    if not membership.allows("member"):
        raise PermissionDenied("Viewers read the labels; members manage them.")


def _back(membership: Membership) -> HttpResponse:
    return redirect("label_list", tenant=membership.tenant.slug)


@tenant_view
def label_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    found = select.label_catalogue(tenant=membership.tenant, fresh=True)
    in_use = [label for label in found if label.in_use]
    busy = [label for label in found if label.busy]
    gone = [label for label in found if label.state == "gone"]
    return render(
        request,
        "tracker/labels/list.html",
        {
            "membership": membership,
            "labels": in_use,
            "busy": busy,
            "gone": gone,
            "label_colours": select.label_colours(found),
            "can_manage": membership.allows("member"),
        },
    )


@tenant_view
@require_http_methods(["GET", "POST"])
def label_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    _member(membership)
    form = LabelForm(request.POST or None, initial={"name": request.GET.get("name", "")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            label = service.label_create(
                membership=membership, name=data["name"], colour=data["colour"], description=data["description"]
            )
        except InvalidInput as error:
            if not _holds(membership, data["name"], data["colour"], data["description"]):
                form.add_error("name", f"{str(error)[:1].upper()}{str(error)[1:]}.")
            else:  # this form sent twice (or the same label made by someone a moment before): nothing to do
                messages.info(
                    request,
                    f"Label {data['name']} is there already, with this colour and description (this form sent "
                    "twice?); nothing changed.",
                )
                return _back(membership)
        else:
            messages.success(request, f"Label {label.name} created.")
            return _back(membership)
    return render(request, "tracker/labels/form.html", {"membership": membership, "form": form, "label": None})


def _holds(membership: Membership, name: str, colour: str, description: str) -> bool:
    """The team's label ``name`` is in use with this very colour and description (one consistent GetItem)."""
    try:
        now = select.label_access(tenant=membership.tenant, name=name)
    except Http404:
        return False
    return now.in_use and now.version > 0 and (now.colour, now.description) == (colour, description.strip())


@tenant_view
@require_http_methods(["GET", "POST"])
def label_edit(request: HttpRequest, membership: Membership, label: str) -> HttpResponse:
    _member(membership)
    current = select.label_access(tenant=membership.tenant, name=label)
    if not current.in_use and request.method != "POST":
        return _not_in_use(request, membership, current)
    initial = {"colour": current.colour, "description": current.description, "version": current.version}
    form = LabelForm(request.POST or None, initial=initial, editing=True)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved = service.label_edit(
                membership=membership,
                name=current.name,
                colour=data["colour"],
                description=data["description"],
                expected_version=data["version"],
            )
        except ChangedSinceRead:  # a stale form: the 409 page, unless the label holds what it asks already
            if not _holds(membership, current.name, data["colour"], data["description"]):
                raise
            messages.info(
                request,
                f"Label {current.name} has this colour and description already (this form sent twice?); "
                "nothing changed.",
            )
        else:
            messages.success(request, f"Label {saved.name} saved.")
        return _back(membership)
    return render(request, "tracker/labels/form.html", {"membership": membership, "form": form, "label": current})


def _confirm(
    request: HttpRequest, membership: Membership, current: Label, *, action: str, to: str, form: object
) -> HttpResponse:
    count = select.label_issue_count(tenant=membership.tenant, name=current.name, limit=service.IN_REQUEST_MAX)
    more = count > service.IN_REQUEST_MAX  # one page counted at most: "more than 25" beyond it
    target = next((lb for lb in select.label_catalogue(tenant=membership.tenant) if lb.name == to), None)
    return render(
        request,
        "tracker/labels/confirm.html",
        {
            "membership": membership,
            "label": current,
            "action": action,
            "to": to,
            "target_exists": bool(target and target.state != "gone"),
            "form": form,
            "count": count,
            "more": more,
            "issues": select.label_issues(tenant=membership.tenant, name=current.name, limit=SHOWN_ISSUES)
            if count
            else [],
            "in_request": not more,
            "in_request_max": service.IN_REQUEST_MAX,
            "cost_writes": count * service.COST_PER_ISSUE_WCU,
            "cost_per_issue": service.COST_PER_ISSUE_WCU,
            "label_colours": select.catalogue_colours(tenant=membership.tenant),
            "key": new_idempotency_key(),  # this page's own: sent twice, the second send is told so
        },
    )


def _already(membership: Membership, moved: service.Moved, *, keyed: bool) -> str:
    """What a confirm of a change started before says: this form sent twice, or who started it (you, from
    another page when this post had a key of its own), or for a change started before marks named anyone,
    either."""
    label = moved.label
    gone = label.state == "gone"
    if moved.own:
        doing = f"renamed to {label.renamed_to}" if label.renamed_to else "deleted"
        when = "was" if gone else "is being"
        since = "the first time" if gone else "since the first time"
        return f"You sent this form twice: {label.name} {when} {doing} {since}; nothing more done."
    if label.started_by:
        if gone:
            did = f"renamed {label.name} to {label.renamed_to}" if label.renamed_to else f"deleted {label.name}"
        else:
            did = (
                f"started renaming {label.name} to {label.renamed_to}"
                if label.renamed_to
                else (f"started deleting {label.name}")
            )
        who = "You" if label.started_by == membership.user.get_username() else label.started_by
        where = " (from another page)" if who == "You" and keyed else ""
        return f"{who} {did} already{where}; nothing more done."
    doing = f"renamed to {label.renamed_to}" if label.renamed_to else "deleted"
    return f"{label.name} {'was' if gone else 'is being'} {doing} already (by this form, sent before, or another)."


def _not_in_use(request: HttpRequest, membership: Membership, label: Label) -> HttpResponse:
    """The edit, rename or delete pages of a label being changed or gone (opened again, or back to a confirm page after
    it was sent): no button that could only fail, but what became of it, on the labels page."""
    by = f" by {label.started_by}" if label.started_by else ""
    doing = f"renamed to {label.renamed_to}" if label.renamed_to else "deleted"
    if label.busy:
        messages.info(request, f"{label.name} is being {doing}{by}; its progress shows below.")
    else:
        messages.info(request, f"{label.name} was {doing}{by}; there is nothing left to change.")
    return _back(membership)


def _done(
    request: HttpRequest, membership: Membership, moved: service.Moved, *, what: str, keyed: bool
) -> HttpResponse:
    if moved.already:
        messages.info(request, _already(membership, moved, keyed=keyed))
    elif moved.queued:
        messages.success(request, f"{what} goes on in the background; its progress shows below.")
    elif moved.label.busy:
        messages.warning(request, f"{what} could not be started in the background; press Resume below.")
    else:
        n = moved.moved
        messages.success(request, f"{what}: {n} issue{'' if n == 1 else 's'} changed.")
    return _back(membership)


@tenant_view
@require_http_methods(["GET", "POST"])
def label_rename(request: HttpRequest, membership: Membership, label: str) -> HttpResponse:
    _member(membership)
    current = select.label_access(tenant=membership.tenant, name=label)
    if not current.in_use and not request.POST.get("confirm"):  # only a confirm sent before is answered below
        return _not_in_use(request, membership, current)
    form = RenameForm(request.POST or None, initial={"version": current.version})
    if request.method == "POST" and form.is_valid():
        to = form.cleaned_data["to"]
        if not form.cleaned_data["confirm"]:
            return _confirm(request, membership, current, action="rename", to=to, form=form)
        try:
            moved = service.label_rename(
                membership=membership,
                name=current.name,
                to=to,
                expected_version=form.cleaned_data["version"],
                key=form.cleaned_data["idempotency_key"],
            )
        except InvalidInput as error:
            form.add_error("to", f"{str(error)[:1].upper()}{str(error)[1:]}.")
        else:
            keyed = bool(form.cleaned_data["idempotency_key"])
            return _done(request, membership, moved, what=f"Renaming {current.name} to {to}", keyed=keyed)
    return render(request, "tracker/labels/rename.html", {"membership": membership, "form": form, "label": current})


@tenant_view
@require_http_methods(["GET", "POST"])
def label_delete(request: HttpRequest, membership: Membership, label: str) -> HttpResponse:
    _member(membership)
    current = select.label_access(tenant=membership.tenant, name=label)
    if not current.in_use and request.method != "POST":
        return _not_in_use(request, membership, current)
    if request.method == "POST":
        form = ConfirmForm(request.POST)
        if form.is_valid():
            try:
                moved = service.label_delete(
                    membership=membership,
                    name=current.name,
                    expected_version=form.cleaned_data["version"],
                    key=form.cleaned_data["idempotency_key"],
                )
            except InvalidInput as error:
                form.add_error(None, f"{str(error)[:1].upper()}{str(error)[1:]}.")
                return _confirm(request, membership, current, action="delete", to="", form=form)
            keyed = bool(form.cleaned_data["idempotency_key"])
            return _done(request, membership, moved, what=f"Deleting {current.name}", keyed=keyed)
        return _confirm(request, membership, current, action="delete", to="", form=form)  # its errors shown
    form = ConfirmForm(initial={"version": current.version})
    return _confirm(request, membership, current, action="delete", to="", form=form)


@tenant_view
@require_GET
def label_progress(request: HttpRequest, membership: Membership, label: str) -> JsonResponse:
    """How far a rename or delete of the label is (the labels page's script asks every few seconds while it runs):
    one GetItem, eventually consistent (0.5 RCU); 404 for a label the team never had."""
    current = select.label_progress(tenant=membership.tenant, name=label)
    return JsonResponse(
        {
            "name": current.name,
            "state": current.state,
            "done": current.done,
            "total": current.total,
            "busy": current.busy,
        }
    )


@tenant_view
@require_POST
def label_resume(request: HttpRequest, membership: Membership, label: str) -> HttpResponse:
    _member(membership)
    current = select.label_access(tenant=membership.tenant, name=label)
    if not current.busy:
        messages.info(request, f"Nothing is left to do for {current.name}.")
    elif service.label_change_queue(membership=membership, name=current.name):
        messages.success(request, f"The change of {current.name} goes on in the background.")
    else:
        messages.warning(request, "The background queue does not answer; try again in a minute.")
    return _back(membership)
