"""Go to: the command palette's results (``?format=json``, for static/tracker/palette.js behind Ctrl-K / ⌘K)
and the same results as a page of their own (the header's "Go to" box, without JavaScript).

What is read is ``selectors.palette.palette_find``'s (an issue key: one GetItem, 0.5 RCU; projects: the cached
list; words: the search engine + ≤ 5 rows, ≤ 2.5 RCU). The actions are links to pages that exist: one whose
URL name is not (yet) in the URLconf is left out, so the palette never offers a 404.

Every answer (the JSON, the page, the jump to an issue) is ``Cache-Control: private, no-store``, as autocomplete's and
the preview's: it holds a team's issue titles and view names, which no shared cache may keep for someone else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET

from tracker.models import Membership
from tracker.selectors.palette import MAX_QUERY, PaletteFinds, palette_find
from tracker.selectors.projects import project_list
from tracker.views.base import tenant_view

SHOWN = 12  # results at most, all sources together


@dataclass(frozen=True)
class Result:
    kind: str  # "issue", "project", "view", "action", "search"
    label: str
    hint: str
    url: str


# (label, URL name, role needed, words it is also found by); the team's pages, then each project's
TEAM_ACTIONS = (
    ("New issue", "issue_create_choose", "member", "create add"),
    ("Projects", "project_list", "viewer", "home"),
    ("My issues", "tenant_issues", "viewer", "assigned me mine"),
    ("All issues", "tenant_issues", "viewer", "list search"),
    ("Inbox", "inbox", "viewer", "notifications"),
    ("Labels", "label_list", "viewer", "tags colours"),
    ("Saved views", "saved_views", "viewer", "filters"),
    ("Notification settings", "notify_settings", "viewer", "settings email mail"),
    ("Team", "team", "viewer", "members people settings"),
    ("Leaderboard", "leaderboard", "viewer", "points scores"),
    ("Orders", "order_list", "viewer", ""),
)
PROJECT_ACTIONS = (
    ("New issue", "issue_create", "member", "create add"),
    ("Board", "board", "viewer", "kanban columns"),
    ("Milestones", "milestone_list", "viewer", "releases"),
)
MINE = {"My issues": "is:open assignee:@me"}


def _url(name: str, **kwargs: str) -> str | None:
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:  # a page not (yet) in the URLconf is not offered
        return None


def _matches(words: list[str], *texts: str) -> bool:
    haystack = " ".join(texts).lower()
    return all(word in haystack for word in words)


def _actions(membership: Membership, finds: PaletteFinds) -> list[Result]:
    tenant = membership.tenant.slug
    words = finds.query.lower().split()
    found: list[Result] = []
    for label, name, role, also in TEAM_ACTIONS:
        url = _url(name, tenant=tenant)
        if url and membership.allows(role) and _matches(words, label, also):
            if label in MINE:
                url += "?" + urlencode({"q": MINE[label]})
            found.append(Result("action", label, "Page", url))
    projects = finds.projects if words else []
    if words and not finds.projects:  # "board" names no project: each project's board is offered
        projects = project_list(tenant=membership.tenant)
    for project in projects:
        for label, name, role, also in PROJECT_ACTIONS:
            url = _url(name, tenant=tenant, project=project.project_key)
            if url and membership.allows(role) and _matches(words, label, also, project.project_key, project.name):
                found.append(Result("action", f"{label} · {project.project_key}", project.name, url))
    return found


def palette_results(membership: Membership, finds: PaletteFinds) -> list[Result]:
    """The results in the order shown: the issue a key names, projects, saved views, actions, issues found, and
    "search for"."""
    tenant = membership.tenant.slug
    results: list[Result] = []
    if finds.issue is not None:
        issue = finds.issue
        url = reverse("issue_detail", kwargs={"tenant": tenant, "project": issue.project_key, "number": issue.number})
        return [Result("issue", f"{issue.reference} {issue.title}", "Issue", url)]
    if finds.missing_issue:
        return []
    for project in finds.projects:
        url = reverse("issue_list", kwargs={"tenant": tenant, "project": project.project_key})
        results.append(Result("project", f"{project.project_key} {project.name}", "Project", url))
    for view in finds.views:
        url = reverse("saved_view_open", kwargs={"tenant": tenant, "view_id": view.id})
        hint = "Your view" if view.author == membership.user.get_username() else f"{view.author}'s view"
        results.append(Result("view", view.name, hint, url))
    results.extend(_actions(membership, finds))
    for issue in finds.issues:
        url = reverse("issue_detail", kwargs={"tenant": tenant, "project": issue.project_key, "number": issue.number})
        results.append(Result("issue", f"{issue.reference} {issue.title}", "Issue", url))
    results = results[: SHOWN - 1]
    if finds.query:
        url = reverse("tenant_issues", kwargs={"tenant": tenant}) + "?" + urlencode({"q": finds.query})
        results.append(Result("search", f"Search issues for “{finds.query}”", "Search", url))
    return results


NO_STORE = "private, no-store"


@tenant_view
@require_GET
def go(request: HttpRequest, membership: Membership) -> HttpResponse:
    response = _go(request, membership)
    response["Cache-Control"] = NO_STORE
    return response


def _go(request: HttpRequest, membership: Membership) -> HttpResponse:
    query = request.GET.get("q", "")[:MAX_QUERY]
    finds = palette_find(membership=membership, query=query)
    results = palette_results(membership, finds)
    if request.GET.get("format") == "json":
        return JsonResponse(
            {
                "query": finds.query,
                "missing": f"There is no issue {finds.missing_issue}." if finds.missing_issue else None,
                "results": [asdict(result) for result in results],
            }
        )
    if finds.issue is not None:  # the header's box given a key: straight to the issue, as the lists do
        return redirect(results[0].url)
    return render(
        request,
        "tracker/palette/go.html",
        {"membership": membership, "query": finds.query, "results": results, "missing": finds.missing_issue},
        status=404 if finds.missing_issue else 200,
    )
