"""What the command palette (Ctrl-K, and /t/<team>/go/ without JavaScript) finds for what was typed.

Each source is one bounded read, stated in DynamoDB's capacity units:

    an issue key ("WEB-12")  → one GetItem of the issue (0.5 RCU, eventually consistent); nothing else is read
    projects                 → the team's cached project list (``selectors.projects.project_list``: Redis; on a
                               miss one index Query + one BatchGetItem), matched here over the team's few projects
    saved views              → the header menu's cached lists (``selectors.preferences.view_menu``: Redis; on a
                               miss two Queries, 0.5 RCU each), matched by name
    words (≥ 2 letters)      → the search engine (no DynamoDB) + one BatchGetItem of ≤ ``SEARCH_SIZE`` rows
                               (0.5 RCU a row: ≤ 2.5 RCU)

The actions (new issue, inbox, …) and their addresses are the view's: they read nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ddbmodels import issues as ddb_issues
from ddbmodels.issues import IssueItem, ProjectItem
from ddbmodels.preferences import SavedView
from tracker.issue_query import goto_target
from tracker.models import Membership
from tracker.search.queries import search_page
from tracker.selectors.preferences import view_menu
from tracker.selectors.projects import project_list

SEARCH_SIZE = 5  # issues a palette shows for words: one small page
PROJECTS_SHOWN = 8
VIEWS_SHOWN = 5
MIN_SEARCH = 2  # fewer characters than this are matched against projects and actions only
MAX_QUERY = 200


@dataclass(frozen=True)
class PaletteFinds:
    """What the palette found: an issue the key names, projects, issues the words find."""

    query: str
    issue: IssueItem | None = None  # the issue a key like WEB-12 names (live)
    missing_issue: str | None = None  # "WEB-12" when the key names no live issue
    projects: list[ProjectItem] = field(default_factory=list)
    views: list[SavedView] = field(default_factory=list)  # the person's and the team's shared saved views
    issues: list[IssueItem] = field(default_factory=list)  # found by the words


def _project_matches(project: ProjectItem, words: str) -> bool:
    if not words:
        return True
    return words in project.project_key.lower() or words in (project.name or "").lower()


def palette_find(*, membership: Membership, query: str) -> PaletteFinds:
    """The finds for ``query`` (stripped and cut to ``MAX_QUERY``); see the module's costs."""
    tenant = membership.tenant
    query = " ".join(query.split())[:MAX_QUERY]
    target = goto_target(query, project_key=None)
    if target is not None:  # a key is a jump: one GetItem and nothing else
        key, number = target
        issue = ddb_issues.issue_get(tenant=tenant.slug, project_key=key, number=number)
        if issue is None or issue.is_tombstone:
            return PaletteFinds(query=query, missing_issue=f"{key}-{number}")
        return PaletteFinds(query=query, issue=issue)
    lowered = query.lower()
    # The team's projects are a handful (cached, read whole): matching them here is bounded by the team.
    projects = [p for p in project_list(tenant=tenant) if _project_matches(p, lowered)][:PROJECTS_SHOWN]
    menu = view_menu(membership=membership)  # ≤ 100 a list (the menu's bound), matched here
    views = [v for v in [*menu.mine, *menu.shared] if all(w in v.name.lower() for w in lowered.split())]
    issues: list[IssueItem] = []
    if len(query) >= MIN_SEARCH:
        issues = search_page(tenant=tenant.slug, text=query, size=SEARCH_SIZE).issues
    return PaletteFinds(query=query, projects=projects, views=views[:VIEWS_SHOWN], issues=issues)
