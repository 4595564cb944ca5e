"""The demo's milestones (issue 21): in acme's WEB, "v1.2" due in 10 days and about 60 % done, "v1.3" due in six
weeks with a few done, on about 40 issues; progress from the project's counts refresh, as after any change.

Idempotent: nothing is done when WEB has a milestone called v1.2 already (a demo loaded before milestones gets
them on its next ``seed_demo``). The issues are given their milestone with one BatchWriteItem of the whole items
(``issues_put_many``: the ``ms`` attribute fills the ``milestone_status`` index), as the rest of the demo is written.
"""

from __future__ import annotations

from datetime import timedelta

from ddbmodels import issues, milestones
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem
from tracker.cache import invalidate
from tracker.selectors.milestones import milestones_cache_key
from tracker.services.projects import project_counts_refresh

TEAM, PROJECT = "acme", "WEB"
PLAN = (  # (name, due in days, description, issues done, issues still open)
    ("v1.2", 10, "The December release: sign-in, the settings page and the slow search.", 15, 10),
    ("v1.3", 42, "After the holidays: the new editor and exports.", 2, 13),
)
DONE = ("resolved", "closed")


def milestones_seed(team: str = TEAM, project: str = PROJECT) -> list[str]:
    """Create the demo milestones and put issues in them, unless WEB has them already; what was done, in words."""
    if issues.project_get(tenant=team, key=project) is None:
        return []
    existing = milestones.milestone_list(tenant=team, project_key=project, consistent=True)
    if milestones.by_name(existing, PLAN[0][0]) is not None:
        return []
    live = _live_issues(team, project)
    done = [i for i in live if i.status in DONE and i.milestone is None]
    still = [i for i in live if i.status not in DONE and i.milestone is None]
    said, changed = [], []
    today = utcnow().date()
    for name, days, description, n_done, n_open in PLAN:
        milestone, _ = milestones.milestone_create(
            tenant=team,
            project_key=project,
            name=name,
            due=today + timedelta(days=days),
            description=description,
            created_by="alice",
        )
        chosen = done[:n_done] + still[:n_open]
        done, still = done[n_done:], still[n_open:]
        for issue in chosen:
            issue.milestone = milestone.milestone_id
        changed += chosen
        said.append(f"milestone {name} ({len(chosen)} issues)")
    issues.issues_put_many(changed)
    invalidate(milestones_cache_key(team, project))  # written here, not through the site's services
    project_counts_refresh(tenant=team, key=project)  # the milestones' progress, as after any change
    return said


def _live_issues(team: str, project: str) -> list[IssueItem]:
    """The project's live issues, newest first (the demo's most recent work goes into the milestones)."""
    found: list[IssueItem] = []
    after = issues.PROJECT_SK
    while True:
        page, after_next = issues.issue_collection_page(tenant=team, project_key=project, after=after, limit=500)
        found += [i for i in page if not i.is_tombstone]
        if after_next is None:
            break
        after = after_next
    return sorted(found, key=lambda i: -int(i.number))
