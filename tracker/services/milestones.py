"""Milestone writes: members create, edit and reopen a project's milestones and put issues in them (closing one
is ``milestone_close``'s).

Every write invalidates the project's cached milestone list (``selectors.milestones``). Progress is not
written here: the project's counts refresh (``services.projects.project_counts_refresh``) writes it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem, ProjectItem
from ddbmodels.milestones import MilestoneItem
from tracker.cache import invalidate
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.selectors import milestones as milestone_selectors
from tracker.services import activity
from tracker.services.issues import schedule_counts
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)


def _changed(tenant: str, project_key: str) -> None:
    invalidate(milestone_selectors.milestones_cache_key(tenant, project_key))


def milestone_create(
    *,
    membership: Membership,
    project: ProjectItem,
    name: str,
    due: date | None,
    description: str = "",
    idempotency_key: str | None = None,
) -> tuple[MilestoneItem, bool]:
    """Create the milestone (members); the same form's key again returns it, created False, writing nothing.

    NameTaken when the project has a milestone of that name.
    """
    require_role(membership, "member")
    item, created = ddb_milestones.milestone_create(
        tenant=project.tenant,
        project_key=project.project_key,
        name=name,
        due=due,
        description=description,
        created_by=membership.user.get_username(),
        milestone_id=idempotency_key,
    )
    if created:
        _changed(project.tenant, project.project_key)
    return item, created


def milestone_update(
    *,
    membership: Membership,
    milestone: MilestoneItem,
    expected_version: int,
    name: str,
    due: date | None,
    description: str,
) -> MilestoneItem:
    """Save an edit made on ``expected_version``; ChangedSinceRead if stale, NameTaken for another's name."""
    require_role(membership, "member")
    item = ddb_milestones.milestone_update(
        milestone, name=name, due=due, description=description, expected_version=expected_version
    )
    _changed(milestone.tenant, milestone.project_key)
    return item


def milestone_reopen(*, membership: Membership, milestone: MilestoneItem, expected_version: int) -> MilestoneItem:
    require_role(membership, "member")
    if milestone.is_closing:
        raise InvalidTransition("the milestone is being closed", current="closing")
    item = ddb_milestones.milestone_set_state(milestone, state="open", expected_version=expected_version)
    _changed(milestone.tenant, milestone.project_key)
    return item


def issue_milestone_set(
    *,
    membership: Membership,
    project: ProjectItem,
    issue: IssueItem,
    expected_version: int,
    milestone_id: str | None,
    token: str | None,
) -> bool:
    """Put the issue in the open milestone ``milestone_id`` of its project (None: in none); True when it changed.

    One ``issues.issue_change`` on ``expected_version`` with the form's token (sent twice: changed once); a move
    into a milestone is a transaction with its ConditionCheck (4 WCU for a ≤ 1 KB issue). ChangedSinceRead when the
    issue was saved since; MilestoneNotOpen (an InvalidInput) for a milestone that is not an open one here now.
    """
    require_role(membership, "member")
    token = token or ddb_milestones.new_milestone_id()
    if issue.bulk_token != token and int(issue.version or 0) != expected_version:
        raise ChangedSinceRead("changed since it was loaded", current=issue.status, number=issue.number)
    names = milestone_selectors.milestone_names(tenant=project.tenant, project_key=project.project_key)
    # Whether the milestone is open is checked by the write (a ConditionCheck in its transaction): a close that
    # starts after this form was read refuses it (MilestoneNotOpen, nothing written). The one it is in: no write.
    # This form applied already (sent twice, or answered 503 after its write): no write, ``replayed``, and its
    # change is recorded again under its own key (doubles nothing; 1 WCU for the refused event put).
    change = ddb_issues.issue_change(issue, token=token, milestone=milestone_id or None)
    if change.to_record:
        was, now = change.before["milestone"], change.after["milestone"]
        data = {"changed": {"milestone": [names.get(was or "", was), names.get(now or "", now)]}}
        activity.record(
            change.issue,
            kind=Kind.ISSUE_EDITED,
            actor=membership.user.get_username(),
            data=data,
            key=change.event_key(Kind.ISSUE_EDITED),
        )
        schedule_counts(project)
    return change.changed


def milestone_claims_job(run: JobRun, *, fix: bool = True, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Every project's milestones against their name claims (``ddbmodels.milestones.claims_check``; review F17):
    the claims of milestones made before claims existed are written (``manage.py upgrade_search
    --check-milestones``). A name two milestones share is listed for a person to rename, never changed."""
    report: dict[str, Any] = {}
    for tenant, project_key in ddb_issues.all_project_keys():
        if fix:
            run.fence()
        checked = ddb_milestones.claims_check(tenant=tenant, project_key=project_key, fix=fix)
        if not checked.milestones:
            continue
        report[f"{tenant}/{project_key}"] = {
            "milestones": checked.milestones,
            "claimed": checked.claimed,
            "written": checked.written,
            "conflicts": checked.conflicts,
        }
        shared = f"; names to rename: {', '.join(checked.conflicts)}" if checked.conflicts else ""
        say(
            f"milestone names: {tenant}/{project_key}: {checked.milestones} milestones, {checked.claimed} claimed "
            f"already, {checked.written} claims written{shared}"
        )
        run.progress(stage="milestone names", project=f"{tenant}/{project_key}")
    return report
