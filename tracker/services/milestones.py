"""Milestone writes: members create, edit, close and reopen a project's milestones; closing one with open issues
moves them (to another open milestone, or out of any) — up to ``MOVE_IN_REQUEST`` in the request, more as a job.

Every write invalidates the project's cached milestone list (``selectors.milestones``). Progress is not
written here: the project's counts refresh (``services.projects.project_counts_refresh``) writes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition, Unavailable
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem, ProjectItem
from ddbmodels.milestones import MilestoneItem
from tracker import enqueue
from tracker.cache import invalidate
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.selectors import milestones as milestone_selectors
from tracker.services import activity
from tracker.services.issues import schedule_counts
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)
MOVE_IN_REQUEST = 25  # issues a close moves in the request; more go to the job
CHOICES = ("move", "remove", "keep")  # what closing does with the open issues


def job_name(tenant: str, project_key: str, milestone_id: str) -> str:
    return f"milestone_close:{tenant}:{project_key}:{milestone_id}"


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


@dataclass
class Closed:
    """What closing did: issues moved now, refused ones (reference: why), or a job started for many."""

    milestone: MilestoneItem
    moved: int = 0
    refused: dict[str, str] = field(default_factory=dict)
    job: bool = False
    settled: int = 0  # rows listed that needed nothing: out of the milestone already (moved before, or meanwhile)


def milestone_close(
    *,
    membership: Membership,
    project: ProjectItem,
    milestone: MilestoneItem,
    expected_version: int,
    issues: str,
    to: str | None,
    token: str | None,
) -> Closed:
    """Close the milestone; its open and in-progress issues: ``move`` to the open milestone ``to``, ``remove``
    (no milestone), or ``keep`` (close anyway, they stay in it).

    Up to ``MOVE_IN_REQUEST`` issues are changed here (``issues.issue_change`` with the form's ``token``: a form
    sent twice changes nothing twice), then the milestone closes. More start the job ``milestone_close``
    (which moves them all, then closes it). ChangedSinceRead when the milestone was saved since it was read;
    InvalidInput for a target that is not another open milestone of the project.
    """
    require_role(membership, "member")
    token = token or ddb_milestones.new_milestone_id()  # a form without its key: this request's own token
    if issues not in CHOICES:
        raise InvalidInput("move, remove or keep", issues=issues)
    if milestone.is_closing:
        raise InvalidTransition("the milestone is being closed", current="closing")
    if int(milestone.version or 0) != expected_version:
        raise ChangedSinceRead("the milestone changed since it was loaded", milestone=milestone.milestone_id)
    if not milestone.is_open:
        raise InvalidTransition("the milestone is closed already", current="closed")
    target = None
    if issues == "move":
        target = _target(milestone, to)
    if issues != "keep":
        found, more = milestone_selectors.milestone_open_issues(
            tenant=project.tenant,
            project_key=project.project_key,
            milestone_id=milestone.milestone_id,
            limit=MOVE_IN_REQUEST,
        )
        if more:  # "closing" first (on the version read: a second close is refused from now), then the job
            closing = ddb_milestones.milestone_set_state(milestone, state="closing", expected_version=expected_version)
            try:
                _start_job(
                    project.tenant,
                    project.project_key,
                    milestone.milestone_id,
                    target.milestone_id if target else None,
                    token,
                    int(closing.version),
                    membership.user.get_username(),
                )
            except Unavailable:
                ddb_milestones.milestone_set_state(closing, state="open", expected_version=int(closing.version))
                raise
            finally:
                _changed(project.tenant, project.project_key)
            return Closed(milestone=closing, job=True)
        outcome = _move(found, milestone, target, token, actor=membership.user.get_username())
    else:
        outcome = Closed(milestone=milestone)
    outcome.milestone = ddb_milestones.milestone_set_state(milestone, state="closed", expected_version=expected_version)
    _changed(project.tenant, project.project_key)
    if outcome.moved:
        schedule_counts(project)
    return outcome


def _start_job(*args: Any) -> None:
    """Queue the close's job; Unavailable (a 503 saying nothing was started) when the queue is down."""
    try:
        enqueue.task(enqueue.CLOSE_MILESTONE).delay(*args)
    except enqueue.BROKER_ERRORS as error:
        raise Unavailable("the background queue is down: nothing was moved or closed") from error


def _target(milestone: MilestoneItem, to: str | None) -> MilestoneItem:
    target = (
        ddb_milestones.milestone_get(tenant=milestone.tenant, project_key=milestone.project_key, milestone_id=to)
        if to and to != milestone.milestone_id
        else None
    )
    if target is None or not target.is_open:
        raise InvalidInput("choose another open milestone of this project", to=to)
    return target


def _move(
    found: list[IssueItem], milestone: MilestoneItem, target: MilestoneItem | None, token: str, *, actor: str
) -> Closed:
    """Each issue out of ``milestone`` into ``target`` (or none): ``issue_change`` on the row's version; a row
    that changed since is read again (consistent GetItem) and tried once more."""
    outcome = Closed(milestone=milestone)
    names = milestone_selectors.milestone_names(tenant=milestone.tenant, project_key=milestone.project_key)
    for issue in found:
        try:
            change = _change_one(issue, target, token)
        except (ChangedSinceRead, InvalidTransition) as error:
            outcome.refused[issue.reference] = "changed meanwhile" if isinstance(error, ChangedSinceRead) else "deleted"
            continue
        if change is None:
            outcome.settled += 1  # moved by this close before (a lagging index still lists it) or elsewhere meanwhile
            continue
        outcome.moved += 1
        data: dict[str, Any] = {
            "changed": {
                "milestone": [names.get(milestone.milestone_id, milestone.name), target.name if target else None]
            }
        }
        activity.record(change, kind=Kind.ISSUE_EDITED, actor=actor, data=data)
    return outcome


def _change_one(issue: IssueItem, target: MilestoneItem | None, token: str) -> IssueItem | None:
    to = target.milestone_id if target else None
    try:
        change = ddb_issues.issue_change(issue, token=token, milestone=to)
    except ChangedSinceRead:
        fresh = ddb_issues.issue_get(
            tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number), consistent=True
        )
        if fresh is None or fresh.is_tombstone:
            raise InvalidTransition("the issue was deleted", current="deleted") from None
        if fresh.milestone != issue.milestone:
            return None  # moved elsewhere meanwhile: not this milestone's any more
        change = ddb_issues.issue_change(fresh, token=token, milestone=to)
    return change.issue if change.changed else None


def milestone_close_job(
    run: JobRun,
    *,
    tenant: str,
    project_key: str,
    milestone_id: str,
    to: str | None,
    token: str,
    expected_version: int,
    actor: str,
) -> dict[str, Any]:
    """The job a close with more than ``MOVE_IN_REQUEST`` open issues starts (task ``close_milestone``, job
    ``milestone_close:<team>:<PROJECT>:<id>``, the team's): walks the milestone's ``milestone_status`` partitions
    (open, in progress) page by page to their end, moving each issue, and walks them again until a walk moves
    nothing (resumable: a moved issue leaves them). The index is eventually consistent: rows of issues this close
    moved already can still be listed; they are replayed (the token is on the issue) and count as done, and the walk
    pages past them rather than stopping. Only issues refused for real (changed meanwhile, twice) keep it open:
    the result lists them and the milestone is not closed. Then the close on the version the form was sent with
    (ChangedSinceRead: somebody saved it meanwhile; it stays open, its issues moved)."""
    milestone = ddb_milestones.milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
    if milestone is None or milestone.state == "closed":
        return {"moved": 0, "closed": False}
    target = _target(milestone, to) if to else None
    moved = 0
    refused: dict[str, str] = {}
    while True:
        moved_now, refused = 0, {}
        for status in ("open", "in_progress"):
            start: dict[str, Any] | None = None
            while True:
                run.fence()
                page = ddb_issues.status_list(
                    tenant=tenant,
                    project_key=project_key,
                    status=status,
                    milestone=milestone_id,
                    size=MOVE_IN_REQUEST,
                    start=start,
                )
                for issue in page.issues:
                    issue.milestone = milestone_id  # the index's key names it; no index projects ``ms``
                outcome = _move(page.issues, milestone, target, token, actor=actor)
                moved_now += outcome.moved
                # a deleted issue is out of the milestone: only the others keep it open
                refused.update({ref: why for ref, why in outcome.refused.items() if why != "deleted"})
                run.progress(moved=moved + moved_now, refused=len(refused))
                start = page.next_key
                if start is None:
                    break
        moved += moved_now
        if not moved_now:
            break  # a whole walk changed nothing: every row left is done already or refused
    project = ddb_issues.project_get(tenant=tenant, key=project_key)
    if project is not None and moved:
        schedule_counts(project)
    if refused:
        _finish(milestone, "open", expected_version)  # open again, with the refused issues in it
        log.warning("milestone %s of %s/%s not closed: %d refused", milestone_id, tenant, project_key, len(refused))
        return {"moved": moved, "refused": len(refused), "refused_issues": refused, "closed": False}
    _finish(milestone, "closed", expected_version)
    return {"moved": moved, "refused": 0, "closed": True}


def _finish(milestone: MilestoneItem, state: str, expected_version: int) -> None:
    """The job's end: ``state`` on the version the close set "closing" at; an edit of its name or due date
    meanwhile (the version moved, still closing) does not keep it closing for ever."""
    try:
        ddb_milestones.milestone_set_state(milestone, state=state, expected_version=expected_version)
    except ChangedSinceRead:
        fresh = ddb_milestones.milestone_get(
            tenant=milestone.tenant, project_key=milestone.project_key, milestone_id=milestone.milestone_id
        )
        if fresh is None or fresh.state != "closing":
            raise
        ddb_milestones.milestone_set_state(fresh, state=state, expected_version=int(fresh.version))
    _changed(milestone.tenant, milestone.project_key)


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

    One ``issues.issue_change`` on ``expected_version`` with the form's token (sent twice: changed once).
    ChangedSinceRead when the issue was saved since; InvalidInput for a milestone that is not an open one here.
    """
    require_role(membership, "member")
    if token and issue.bulk_token == token:
        return False  # this form was applied already (sent twice): nothing changes twice
    if int(issue.version or 0) != expected_version:
        raise ChangedSinceRead("changed since it was loaded", current=issue.status, number=issue.number)
    names = milestone_selectors.milestone_names(tenant=project.tenant, project_key=project.project_key)
    if milestone_id:
        target = ddb_milestones.milestone_get(
            tenant=project.tenant, project_key=project.project_key, milestone_id=milestone_id, consistent=False
        )
        if target is None or (not target.is_open and target.milestone_id != issue.milestone):
            raise InvalidInput("choose an open milestone of this project", milestone=milestone_id)
        names[target.milestone_id] = target.name
    before = issue.milestone
    change = ddb_issues.issue_change(
        issue, token=token or ddb_milestones.new_milestone_id(), milestone=milestone_id or None
    )
    if not change.changed:
        return False
    data = {"changed": {"milestone": [names.get(before or "", before), names.get(milestone_id or "", milestone_id)]}}
    activity.record(change.issue, kind=Kind.ISSUE_EDITED, actor=membership.user.get_username(), data=data)
    schedule_counts(project)
    return True
