"""Closing a milestone: its open and in-progress issues move to another open milestone, out of any, or stay.

Every close that moves issues goes through "closing" first, on the version the form was sent with: from then on a
second close, a reopen and every issue write into the milestone are refused (those writes read it consistently),
so no issue comes in while the close walks its issues. The walk reads the ``milestone_status`` index, which is
eventually consistent: an issue put in a moment before may not be listed yet, and rows of issues this close moved
already may still be. So a close walks until a walk moves nothing (the request at least twice, the job until then);
a row it moved before is replayed (the close's token is on the issue) and counts as done. An issue refused for
real (changed meanwhile, read again, changed again) keeps the milestone open, in the request as in the job.

Up to ``MOVE_IN_REQUEST`` issues move in the request; more start the job ``close_milestone``, which reads where
they go and the token from the milestone itself (``ct``, ``ck``): a job that stopped is resumed from the list.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
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
WALKS_IN_REQUEST = 3  # the request's walks at most (the second finds issues the index had not listed yet)
CHOICES = ("move", "remove", "keep")  # what closing does with the open issues


def job_name(tenant: str, project_key: str, milestone_id: str) -> str:
    return f"milestone_close:{tenant}:{project_key}:{milestone_id}"


def _changed(milestone: MilestoneItem) -> None:
    invalidate(milestone_selectors.milestones_cache_key(milestone.tenant, milestone.project_key))


@dataclass
class Closed:
    """What closing did: issues moved now, refused ones (reference: why: it stays open), or a job started."""

    milestone: MilestoneItem
    moved: int = 0
    refused: dict[str, str] = field(default_factory=dict)
    job: bool = False
    queued: bool = True  # with job: False when the queue did not answer (it stays closing: Resume)
    settled: int = 0  # rows listed that needed nothing: out of the milestone already (moved before, or meanwhile)

    @property
    def closed(self) -> bool:
        return self.milestone.state == "closed"


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
    (no milestone), or ``keep`` (close anyway, they stay in it: one UpdateItem).

    ``move``/``remove``: "closing" (on ``expected_version``), then walks of its issues (``issues.issue_change``
    with the form's ``token``: a form sent twice changes nothing twice) until one moves nothing, then closed — or
    left open when an issue was refused (``Closed.refused``). More than ``MOVE_IN_REQUEST``: the job.
    ChangedSinceRead when the milestone was saved since it was read; InvalidInput for a target that is not another
    open milestone of the project; Unavailable when the job could not be queued and nothing was moved.
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
    if issues == "keep":
        closed = ddb_milestones.milestone_set_state(milestone, state="closed", expected_version=expected_version)
        _changed(closed)
        return Closed(milestone=closed)
    target = _target(milestone, to) if issues == "move" else None
    closing = ddb_milestones.milestone_set_state(
        milestone,
        state="closing",
        expected_version=expected_version,
        to=target.milestone_id if target else None,
        token=token,
    )
    _changed(closing)
    outcome = Closed(milestone=closing)
    actor = membership.user.get_username()
    walks, moved_last = 0, True
    while walks < 2 or moved_last:  # until a walk (after the first) moves nothing
        found, more = milestone_selectors.milestone_open_issues(
            tenant=project.tenant,
            project_key=project.project_key,
            milestone_id=milestone.milestone_id,
            limit=MOVE_IN_REQUEST,
        )
        if more or walks == WALKS_IN_REQUEST:
            return _hand_over(outcome, actor, project)
        walk = _move(found, closing, target, token, actor=actor)
        walks, moved_last = walks + 1, walk.moved > 0
        outcome.moved += walk.moved
        outcome.settled += walk.settled
        outcome.refused = walk.refused  # the last walk's: one refused before and moved now is not
    refused = {ref: why for ref, why in outcome.refused.items() if why != "deleted"}  # a deleted one is out
    outcome.milestone = _finish(closing, "open" if refused else "closed", int(closing.version))
    if outcome.moved:
        schedule_counts(project)
    return outcome


def _hand_over(outcome: Closed, actor: str, project: ProjectItem) -> Closed:
    """More than the request moves: the job goes on (it reads where they go from the milestone). When the queue
    is down: opened again if nothing was moved (Unavailable: a 503 saying so), else left closing (Resume)."""
    milestone = outcome.milestone
    if outcome.moved:
        schedule_counts(project)  # the progress of what this request moved, whatever the job does
    try:
        _start_job(milestone.tenant, milestone.project_key, milestone.milestone_id, actor)
    except Unavailable:
        if outcome.moved:
            outcome.queued = False
        else:
            _finish(milestone, "open", int(milestone.version))
            raise
    outcome.job = True
    return outcome


def milestone_close_resume(*, membership: Membership, milestone: MilestoneItem) -> bool:
    """Queue the close job of a milestone left "closing" (its job stopped): the list's Resume. False when the
    queue is down; InvalidTransition when it is not being closed."""
    require_role(membership, "member")
    if not milestone.is_closing:
        raise InvalidTransition("the milestone is not being closed", current=milestone.state)
    try:
        _start_job(milestone.tenant, milestone.project_key, milestone.milestone_id, membership.user.get_username())
    except Unavailable:
        return False
    return True


def _start_job(tenant: str, project_key: str, milestone_id: str, actor: str) -> None:
    """Queue the close's job; Unavailable (a 503 saying nothing was started) when the queue is down."""
    try:
        enqueue.task(enqueue.CLOSE_MILESTONE).delay(tenant, project_key, milestone_id, actor)
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


def milestone_close_job(run: JobRun, *, tenant: str, project_key: str, milestone_id: str, actor: str) -> dict[str, Any]:
    """The job a close with more than ``MOVE_IN_REQUEST`` open issues starts, or Resume (task ``close_milestone``,
    job ``milestone_close:<team>:<PROJECT>:<id>``, the team's): where the issues go and the close's token are the
    milestone's (``ct``, ``ck``, set with "closing"). Walks the milestone's ``milestone_status`` partitions (open,
    in progress) page by page to their end, moving each issue, and walks them again until a walk moves nothing
    (resumable: a moved issue leaves them; rows a lagging index still lists are replayed and count as done). Only
    issues refused for real keep it open: the result lists them. A target closed meanwhile: it opens again."""
    milestone = ddb_milestones.milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
    if milestone is None or not milestone.is_closing:
        return {"moved": 0, "closed": False}  # closed (or opened) already: a job run twice
    if not milestone.close_token:  # made "closing" before the close kept its choice: open again, to close anew
        _finish(milestone, "open", int(milestone.version))
        log.warning("milestone %s of %s/%s: no close recorded; opened again", milestone_id, tenant, project_key)
        return {"moved": 0, "refused": 0, "closed": False, "reopened": "no close recorded"}
    try:
        target = _target(milestone, milestone.close_to) if milestone.close_to else None
    except InvalidInput:
        _finish(milestone, "open", int(milestone.version))
        log.warning("milestone %s of %s/%s not closed: its target is gone or closed", milestone_id, tenant, project_key)
        return {"moved": 0, "refused": 0, "closed": False, "target": "closed"}
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
                outcome = _move(page.issues, milestone, target, milestone.close_token, actor=actor)
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
        _finish(milestone, "open", int(milestone.version))  # open again, with the refused issues in it
        log.warning("milestone %s of %s/%s not closed: %d refused", milestone_id, tenant, project_key, len(refused))
        return {"moved": moved, "refused": len(refused), "refused_issues": refused, "closed": False}
    _finish(milestone, "closed", int(milestone.version))
    return {"moved": moved, "refused": 0, "closed": True}


def _finish(milestone: MilestoneItem, state: str, expected_version: int) -> MilestoneItem:
    """A close's end: ``state`` on the version "closing" was read at; an edit of its name or due date meanwhile
    (the version moved, still closing) does not keep it closing for ever."""
    try:
        done = ddb_milestones.milestone_set_state(milestone, state=state, expected_version=expected_version)
    except ChangedSinceRead:
        fresh = ddb_milestones.milestone_get(
            tenant=milestone.tenant, project_key=milestone.project_key, milestone_id=milestone.milestone_id
        )
        if fresh is None or fresh.state != "closing":
            raise
        done = ddb_milestones.milestone_set_state(fresh, state=state, expected_version=int(fresh.version))
    _changed(done)
    return done
