"""Leaderboard writes: points follow the issues' status; a missed change is repaired by re-running.

The issue services call ``issue_status_changed`` / ``issue_deleted`` after their own write has
succeeded. Those never raise: the status change is already stored, and losing its points for a
while is better than failing the user's request. A failure is logged with the command that puts
it right (``manage.py leaderboard_repair TENANT``), which re-syncs every issue's award with the
issue's status — safe to run any number of times, because awards are idempotent per issue.

Deleting (tombstoning) an issue takes its points back: deletion is the owners' way to remove
an issue that should never have counted (a duplicate, spam, or one made up to farm points), and
a deleted issue can no longer be looked at to justify its points.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.conf import settings

from ddbmodels import issues, scores
from ddbmodels import issues as ddb_projects
from ddbmodels.core.errors import NotFound
from ddbmodels.issues import IssueItem
from tracker.cache import invalidate
from tracker.jobs import JobRun
from tracker.selectors.leaderboard import leaderboard_cache_keys

log = logging.getLogger(__name__)
Change = scores.Change


def leaderboard_invalidate(*, tenant: str) -> None:
    """Drop the tenant's cached tops so the next read goes to DynamoDB."""
    invalidate(*leaderboard_cache_keys(tenant))


def _apply(issue: IssueItem, what: str, change: Callable[[], Change]) -> Change | None:
    try:
        result = change()
    except Exception:  # noqa: BLE001  (the status change itself is stored; this is repairable)
        log.warning(
            "leaderboard: could not %s %s of %s; `manage.py leaderboard_repair %s` puts it right",
            what,
            issue.reference,
            issue.tenant,
            issue.tenant,
            exc_info=True,
        )
        return None
    if result.changed:
        leaderboard_invalidate(tenant=issue.tenant)
    return result


def issue_status_changed(issue: IssueItem, *, before: str) -> Change | None:
    """After a stored status change: award on "resolved", revoke on back to "open". Never raises."""
    if issue.status == "resolved" and issue.assignee:
        return _apply(issue, "award", lambda: scores.award_issue(issue, shards=settings.LEADERBOARD_SHARDS))
    if issue.status == "open" and before in ("resolved", "closed"):
        return _apply(issue, "revoke", lambda: scores.revoke_issue(issue))
    return None


def issue_deleted(issue: IssueItem) -> Change | None:
    """After a stored tombstone: a resolved (or resolved then closed) issue's points go. Never raises."""
    if issue.status in ("resolved", "closed"):
        return _apply(issue, "revoke", lambda: scores.revoke_issue(issue))
    return None


def leaderboard_sync_issue(*, tenant: str, project_key: str, number: int) -> Change:
    """Re-read the issue (consistent) and make its award match its status; NotFound when missing."""
    issue = issues.issue_get(tenant=tenant, project_key=project_key, number=number, consistent=True)
    if issue is None:
        raise NotFound("no such issue", tenant=tenant, project_key=project_key, number=number)
    change = scores.sync_issue(issue, shards=settings.LEADERBOARD_SHARDS)
    if change.changed:
        leaderboard_invalidate(tenant=tenant)
    return change


def leaderboard_repair_job(run: JobRun, *, tenant: str, project_key: str | None = None) -> dict[str, Any]:
    """Sync every issue's award of the tenant (or one project) with its status; report what moved."""
    keys = [project_key] if project_key else sorted(ddb_projects.project_keys(tenant=tenant))
    outcomes: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for done, key in enumerate(keys, start=1):
        for change in scores.sync_project(tenant=tenant, project_key=key, shards=settings.LEADERBOARD_SHARDS):
            outcomes[change.outcome.value] += 1
            if change.changed and change.username:
                sign = 1 if change.outcome is scores.Outcome.AWARDED else -1
                points[change.username] += sign * change.points
        run.progress(stage="syncing", done=done, total=len(keys))
    if outcomes[scores.Outcome.AWARDED] or outcomes[scores.Outcome.REVOKED]:
        leaderboard_invalidate(tenant=tenant)
    return {
        "tenant": tenant,
        "projects": len(keys),
        "issues": sum(outcomes.values()),
        "outcomes": dict(outcomes),
        "points_moved": {user: delta for user, delta in sorted(points.items()) if delta},
    }
