"""Project pages: the tenant's list, and creating one (owners)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from ddbmodels.core.errors import AlreadyExists
from tracker.forms.projects import ProjectForm
from tracker.models import Membership
from tracker.selectors.projects import project_list as select_projects
from tracker.services.projects import project_create as create_project
from tracker.views.base import tenant_view


@tenant_view
def project_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    projects = select_projects(tenant=membership.tenant)
    return render(request, "tracker/project_list.html", {"projects": projects, "membership": membership})


@tenant_view
def issue_create_choose(request: HttpRequest, membership: Membership) -> HttpResponse:
    """New issue from a page of no one project (the ``c`` shortcut): which project it goes in.

    Straight to the new-issue form when the team has one project and it takes new issues; else
    the projects to choose from (the project list's one cached Query).
    """
    if not membership.allows("member"):
        raise PermissionDenied("Viewers cannot create issues.")
    projects = select_projects(tenant=membership.tenant)
    if len(projects) == 1 and not projects[0].importing:
        return redirect("issue_create", tenant=membership.tenant.slug, project=projects[0].project_key)
    return render(request, "tracker/issue_create_choose.html", {"projects": projects, "membership": membership})


@tenant_view
def project_create(request: HttpRequest, membership: Membership) -> HttpResponse:
    if not membership.allows("owner"):
        raise PermissionDenied("Only owners create projects.")
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            project = create_project(membership=membership, **form.cleaned_data)
        except AlreadyExists:
            form.add_error("key", f"{membership.tenant.name} already has a project with this key.")
        else:
            messages.success(request, f"Project {project.project_key} created.")
            return redirect("issue_list", tenant=membership.tenant.slug, project=project.project_key)
    return render(request, "tracker/project_form.html", {"form": form, "membership": membership})
