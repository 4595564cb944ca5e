"""Issue lists: a project's (``/t/<team>/p/<KEY>/``) and the whole team's (``/t/<team>/issues/``).

Both take ``?q=`` (``is:open assignee:@me label:bug`` and free words), or the same filters as
``?status=``, ``?assignee=``, ``?label=``, ``?sort=``; ``?q=WEB-123`` (``123`` inside a project)
jumps to that issue. Each page is one Query (``tracker.selectors.issue_lists``).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from ddbmodels.issues import STATUSES, ProjectItem
from tracker.forms.bulk import BulkForm
from tracker.forms.issue_filters import SORT_LABELS, STATUS_LABELS, IssueFilterForm, IssueQuery, QueryError, goto_target
from tracker.models import Membership
from tracker.selectors.issue_lists import IssueListing, issue_listing
from tracker.selectors.issues import issue_exists
from tracker.selectors.labels import catalogue_colours, label_gone
from tracker.selectors.milestones import open_milestones
from tracker.selectors.projects import project_access
from tracker.selectors.tenants import tenant_usernames
from tracker.views.base import tenant_view


def _link(query: IssueQuery, **changes: str | None) -> str:
    text = replace(query, **changes).text()  # type: ignore[arg-type]
    return "?" + urlencode({"q": text}) if text else "?"


def _list_context(
    membership: Membership, listing: IssueListing, project: ProjectItem | None, asked: IssueQuery
) -> dict[str, object]:
    """The list page's context; the box, tabs, sorts and pages' links say what was ``asked``.

    The list fills in what was not asked (open issues, its default sort) and shows that on the
    tabs and sorts; the box holds only what the person asked for, so "Clear" leaves it empty and
    a word typed into it is not glued to a filter nobody typed.
    """
    query = asked
    tabs = []
    # The counts are the project's: on a filtered list ("label:bug") "Open 7" would read as seven open bugs.
    counted = project is not None and project.issue_counts is not None
    counted = counted and not (query.label or query.assignee or query.milestone or query.words)
    if listing.kind != "search" or query.status:
        for status in STATUSES:
            count = project.live_count(status) if counted and project is not None else None
            tabs.append(
                {
                    "label": STATUS_LABELS[status],
                    "count": count,
                    "url": _link(query, status=status),
                    "active": status == listing.query.status,
                }
            )
    sorts = [
        {"label": SORT_LABELS[sort], "url": _link(query, sort=sort), "active": sort == listing.query.sort}
        for sort in listing.sorts
    ]
    base = _link(query)
    bulk = project is not None and membership.allows("member")  # the bulk bar: project lists, members and owners
    return {
        "bulk_form": BulkForm(
            assignees=tenant_usernames(tenant=membership.tenant),
            milestones=open_milestones(tenant=project.tenant, project_key=project.project_key),  # cached list
        )
        if bulk and project is not None
        else None,
        "membership": membership,
        "label_colours": catalogue_colours(tenant=membership.tenant),  # the chips' colours (cached catalogue)
        "label_gone": label_gone(tenant=membership.tenant, name=query.label),  # label:bug after bug was renamed
        "listing": listing,
        "query_text": query.text(),
        "tabs": tabs,
        "sorts": sorts,
        "mine_url": _link(query, assignee="me", words=""),
        "clear_url": "?",
        "next_url": f"{base}&{urlencode({'cursor': listing.next_cursor})}" if listing.next_cursor else None,
        "previous_url": f"{base}&{urlencode({'cursor': listing.previous_cursor})}" if listing.previous_cursor else None,
        "status_labels": STATUS_LABELS,
    }


def _render_list(
    request: HttpRequest, membership: Membership, project: ProjectItem | None, template: str
) -> HttpResponse:
    form = IssueFilterForm(request.GET)
    error = None
    query = IssueQuery()
    if not form.is_valid():
        error = "The filters are too long."
    else:
        try:
            query = form.query()
        except QueryError as problem:  # a form error: named on the page, the list shows the rest
            listing = _listing(membership, project, problem.query, cursor=None)
            context = _list_context(membership, listing, project, problem.query)
            suggestion = problem.suggestion
            context.update(
                project=project,
                error=str(problem),
                query_text=form.data.get("q", ""),
                suggestion=suggestion,
                suggestion_url="?" + urlencode({"q": suggestion}) if suggestion else None,
                rest_listed=True,
            )
            return render(request, template, context)
    project_key = project.project_key if project else None
    if error is None and query.words:
        target = goto_target(query.words, project_key=project_key)
        if target is not None:
            key, number = target
            if issue_exists(tenant=membership.tenant.slug, project_key=key, number=number):
                return redirect("issue_detail", tenant=membership.tenant.slug, project=key, number=number)
            error = f"There is no issue {key}-{number}."
    if error is not None:
        listing = IssueListing(issues=[], next_cursor=None, previous_cursor=None, query=query, kind="status", sorts=())
        context = _list_context(membership, listing, project, query)
        context.update(project=project, error=error, query_text=form.data.get("q", ""))
        return render(request, template, context, status=400)
    try:
        listing = _listing(membership, project, query, cursor=form.cleaned_data.get("cursor") or None)
    except QueryError as problem:  # a milestone this list cannot show: named, the list shows the rest
        listing = _listing(membership, project, problem.query, cursor=None)
        context = _list_context(membership, listing, project, problem.query)
        context.update(project=project, error=str(problem), query_text=form.data.get("q", ""), rest_listed=True)
        return render(request, template, context)
    context = _list_context(membership, listing, project, query)
    context["project"] = project
    return render(request, template, context)


def _listing(
    membership: Membership, project: ProjectItem | None, query: IssueQuery, *, cursor: str | None
) -> IssueListing:
    return issue_listing(
        tenant=membership.tenant.slug,
        project_key=project.project_key if project else None,
        query=query,
        cursor=cursor,
        username=membership.user.get_username(),
    )


@tenant_view
def issue_list(request: HttpRequest, membership: Membership, project: str) -> HttpResponse:
    project_item = project_access(tenant=membership.tenant, key=project)
    return _render_list(request, membership, project_item, "tracker/issue_list.html")


@tenant_view
def tenant_issue_list(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _render_list(request, membership, None, "tracker/tenant_issue_list.html")


def tenant_issues_url(tenant: str, **filters: str) -> str:
    """The team-wide list's URL with ``filters`` as parameters (for links from other pages)."""
    url = reverse("tenant_issues", kwargs={"tenant": tenant})
    return f"{url}?{urlencode(filters)}" if filters else url
