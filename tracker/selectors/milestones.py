"""A project's milestones as pages see them: cached in Redis (cache-aside), invalidated by every write."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.issues import IssueItem
from ddbmodels.milestones import MILESTONE_ID_RE, MilestoneItem
from tracker.cache import cached


def milestones_cache_key(tenant: str, project_key: str) -> str:
    return f"ddb:milestones:{tenant}:{project_key}"


def _dump(items: list[MilestoneItem]) -> list[dict[str, Any]]:
    return [item.to_dynamodb_dict() for item in items]


def _restore(raws: list[dict[str, Any]]) -> list[MilestoneItem]:
    return [MilestoneItem.from_raw_data(raw) for raw in raws]


def milestone_list(*, tenant: str, project_key: str) -> list[MilestoneItem]:
    """The project's milestones with their progress, from Redis or one Query (≈ 0.5 RCU)."""
    return cached(
        milestones_cache_key(tenant, project_key),
        settings.PROJECT_CACHE_SECONDS,
        lambda: ddb_milestones.milestone_list(tenant=tenant, project_key=project_key),
        dump=_dump,
        restore=_restore,
    )


def open_milestones(*, tenant: str, project_key: str) -> list[tuple[str, str]]:
    """(id, name) of the project's open milestones, for a form's choice (the cached list)."""
    return [(m.milestone_id, m.name) for m in milestone_list(tenant=tenant, project_key=project_key) if m.is_open]


def milestone_names(*, tenant: str, project_key: str) -> dict[str, str]:
    """Milestone id → name, for the issue page and the history (the cached list)."""
    return {m.milestone_id: m.name for m in milestone_list(tenant=tenant, project_key=project_key)}


def milestone_access(*, tenant: str, project_key: str, milestone_id: str) -> MilestoneItem:
    """The milestone as stored now (GetItem, consistent: 1 RCU), or Http404; the edit and close pages' read."""
    found = (
        ddb_milestones.milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
        if MILESTONE_ID_RE.match(milestone_id)
        else None
    )
    if found is None:
        raise Http404("No such milestone.")
    return found


def milestone_by_name(*, tenant: str, project_key: str, name: str) -> MilestoneItem | None:
    return ddb_milestones.by_name(milestone_list(tenant=tenant, project_key=project_key), name)


def milestone_open_issues(
    *, tenant: str, project_key: str, milestone_id: str, limit: int
) -> tuple[list[IssueItem], bool]:
    """Up to ``limit`` of the milestone's issues still open or in progress, and whether there are more: two Queries
    of ``milestone_status`` (open, in progress), Limit ``limit`` + 1 each — ≈ 0.5–1 RCU each, whatever its size.

    Each row carries the milestone (the index's key names it; no index projects ``ms``) and its version.
    """
    found: list[IssueItem] = []
    more = False
    for status in ("open", "in_progress"):
        page = ddb_issues.status_list(
            tenant=tenant, project_key=project_key, status=status, milestone=milestone_id, size=limit
        )
        more = more or page.next_key is not None
        for issue in page.issues:
            issue.milestone = milestone_id
            found.append(issue)
    more = more or len(found) > limit
    return found[:limit], more


def issue_milestone(*, tenant: str, project_key: str, milestone_id: str | None) -> MilestoneItem | None:
    """The milestone an issue is in, from the project's cached list (None: in none, or one no longer listed)."""
    if not milestone_id:
        return None
    return next(
        (m for m in milestone_list(tenant=tenant, project_key=project_key) if m.milestone_id == milestone_id), None
    )
