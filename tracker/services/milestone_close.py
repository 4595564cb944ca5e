"""Closing a milestone: its open and in-progress issues move to another open milestone, out of any, or stay.

Every close that moves issues goes through "closing" first, on the version the form was sent with: from then on a
second close, a reopen and every issue write into the milestone are refused (those writes read it consistently),
so no issue comes in while the close walks its issues. The walk reads the ``milestone_status`` index, which is
eventually consistent: an issue put in a moment before may not be listed yet, and rows of issues this close moved
already may still be. So a close walks until a walk moves nothing (the request at least twice, the job until then);
a row it moved before is replayed (the close's token is on the issue) and counts as done. An issue refused for
real (changed meanwhile, read again, changed again) keeps the milestone open, in the request as in the job.

Only open and in-progress issues move: a row the lagging index lists as open whose issue is resolved or closed now
(read again after its version refused the move) stays in the milestone it was done in. The target is read again
(consistent GetItem, 1 RCU) once "closing" is set and before each walk (the job: each page): a target that stopped
being open (closed meanwhile, or closing itself: two closes into each other) stops the close, which opens the
milestone again. Every close's end is kept on the milestone (``lr``: who, moved, refused issues, why it stayed open)
and its row on the list says it until the next close, reopen or edit; the same form sent again is told what its
close did ("Your close ran: …").

Up to ``MOVE_IN_REQUEST`` issues move in the request; more start the job ``close_milestone``, which reads where
they go and the token from the milestone itself (``ct``, ``ck``): a job that stopped is resumed from the list
(offered, and accepted, once a close has been "closing" for ``RESUME_AFTER``). A request cut short by a busy
database (throttled, a move's transaction conflicting every try, the end's write held by a move's transaction:
tried again a few times first) hands over to the job too; when the queue is down as well the milestone opens again
and says why (what moved stays moved). How many the close moved so far is kept on the milestone (``cm``) when
the request hands over and after each page of the job, so the end counts every move, also after a Resume.
At most ``REFUSED_KEPT`` refused issues are named in the outcome kept (then "and N more").

Cost: per issue moved, ``issues.issue_change`` (into the target: one TransactWriteItems [ConditionCheck target
open, Update issue], 2 WCU per started KB of each; out of any milestone: the issue's UpdateItem) + its history
event; per walk (the job: per page of ``MOVE_IN_REQUEST``) the target's GetItem (consistent, 1 RCU) and the index
Query; "closing" and the end (with the outcome kept) one UpdateItem each (``milestones.close``); the count so far
(``milestones.close_moved``), one UpdateItem (1 WCU) at a hand-over after moves and per page of the job that moved
some. A row moved by this close before (the lagging index still lists it, or a Resume after a 503) records its move
again under the move's own event key, which doubles nothing: its event put refused (1 WCU), a delivery put refused
per endpoint (1 WCU).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput, InvalidTransition, MilestoneNotOpen, Unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem, ProjectItem
from ddbmodels.milestones import MilestoneItem
from tracker import enqueue
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.selectors import milestones as milestone_selectors
from tracker.services import activity
from tracker.services.issues import schedule_counts
from tracker.services.milestone_close_end import BUSY, busy, finish, kept_outcome
from tracker.services.milestone_close_end import REFUSED_KEPT as REFUSED_KEPT  # the close's figure, named here
from tracker.services.milestone_close_end import changed as milestone_changed
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)
MOVE_IN_REQUEST = 25  # issues a close moves in the request; more go to the job
WALKS_IN_REQUEST = 3  # the request's walks at most (the second finds issues the index had not listed yet)
CHOICES = ("move", "remove", "keep")  # what closing does with the open issues
RESUME_AFTER = timedelta(minutes=2)  # a close "closing" this long is offered Resume (a request's close takes seconds)
OPEN_STATUSES = ("open", "in_progress")  # what a close moves: a done issue stays in the milestone it was done in


class TargetNotOpen(Exception):
    """The close's target stopped being open while the close ran: it stops (the milestone opens again)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def job_name(tenant: str, project_key: str, milestone_id: str) -> str:
    return f"milestone_close:{tenant}:{project_key}:{milestone_id}"


@dataclass
class Closed:
    """What closing did: issues moved now, refused ones (reference: why: it stays open), or a job started."""

    milestone: MilestoneItem
    moved: int = 0
    refused: dict[str, str] = field(default_factory=dict)
    job: bool = False
    settled: int = 0  # rows listed that needed nothing: out of the milestone already (moved before, or meanwhile)
    why: str = ""  # why it stays open besides refused issues (its target was closed meanwhile)

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
    actor = membership.user.get_username()
    if issues == "keep":
        said = {**kept_outcome(actor, token, None, Closed(milestone=milestone), closed=True), "kept": True}
        closed = ddb_milestones.milestone_set_state(
            milestone, state="closed", expected_version=expected_version, outcome=said
        )
        milestone_changed(closed)
        return Closed(milestone=closed)
    target = target_of(milestone, to) if issues == "move" else None
    closing = ddb_milestones.milestone_set_state(
        milestone,
        state="closing",
        expected_version=expected_version,
        to=target.milestone_id if target else None,
        token=token,
    )
    milestone_changed(closing)
    outcome = Closed(milestone=closing)
    try:
        more = _request_walks(outcome, project, target, token, actor)
        if not more:
            outcome.refused = {ref: why for ref, why in outcome.refused.items() if why != "deleted"}  # it is out
            done = not outcome.refused and not outcome.why
            said = kept_outcome(actor, token, target, outcome, closed=done)
            outcome.milestone = finish(closing, "closed" if done else "open", int(closing.version), said)
    except Exception as error:
        if not busy(error):
            raise
        log.warning("close of milestone %s cut short (%s): handed to the job", milestone.milestone_id, error)
        outcome.why = ""  # the job reads its target again
        return _hand_over(outcome, actor, project, token, target, cut_short=True)
    if more:
        return _hand_over(outcome, actor, project, token, target)
    if outcome.moved:
        schedule_counts(project)
    return outcome


def _request_walks(outcome: Closed, project: ProjectItem, target: MilestoneItem | None, token: str, actor: str) -> bool:
    """The request's walks into ``outcome`` until one (after the first) moves nothing; True: more than the request
    moves (a page with more, or ``WALKS_IN_REQUEST`` reached), the job takes over."""
    closing, walks, moved_last = outcome.milestone, 0, True
    while walks < 2 or moved_last:
        try:
            target_still_open(target)  # read again: another close may have taken it since (A → B, B → A)
        except TargetNotOpen as stop:
            outcome.why = stop.why
            return False
        found, more = milestone_selectors.milestone_open_issues(
            tenant=project.tenant,
            project_key=project.project_key,
            milestone_id=closing.milestone_id,
            limit=MOVE_IN_REQUEST,
        )
        if more or walks == WALKS_IN_REQUEST:
            return True
        walk = move_issues(found, closing, target, token, actor=actor, moved=outcome)
        walks, moved_last = walks + 1, walk.moved > 0
        outcome.settled += walk.settled
        outcome.refused = walk.refused  # the last walk's: one refused before and moved now is not
        if walk.why:
            outcome.why = walk.why
            return False
    return False


def _hand_over(
    outcome: Closed,
    actor: str,
    project: ProjectItem,
    token: str,
    target: MilestoneItem | None,
    *,
    cut_short: bool = False,
) -> Closed:
    """More than the request moves, or the request was ``cut_short`` by a busy database: the job goes on (it reads
    where they go from the milestone, and how many this request moved: ``cm``). When the queue is down it is opened
    again: nothing moved, Unavailable (a 503 saying so); some moved, it says so (its list row too): what moved
    stays moved, the rest is for the next close (Resume would be offered only later)."""
    milestone = outcome.milestone
    if outcome.moved:
        schedule_counts(project)  # the progress of what this request moved, whatever the job does
        _keep_count(milestone, token, outcome.moved)
    try:
        _start_job(milestone.tenant, milestone.project_key, milestone.milestone_id, actor)
    except Unavailable:
        if not outcome.moved:
            finish(milestone, "open", int(milestone.version))
            raise
        queue = "the background queue did not answer"
        outcome.why = f"{BUSY} and {queue}" if cut_short else queue
        said = kept_outcome(actor, token, target, outcome, closed=False)
        outcome.milestone = finish(milestone, "open", int(milestone.version), said)
        return outcome
    outcome.job = True
    return outcome


def _keep_count(milestone: MilestoneItem, token: str, moved: int) -> None:
    """The request's moves, kept for the job's end (``cm``); a busy database loses only the count, not the close."""
    try:
        ddb_milestones.close_moved_write(milestone, token=token, moved=moved)
    except Exception as error:
        if not busy(error):
            raise
        log.warning("milestone %s: the count of %d moved could not be kept (%s)", milestone.milestone_id, moved, error)


def milestone_close_resume(*, membership: Membership, milestone: MilestoneItem) -> bool:
    """Queue the close job of a milestone left "closing" (its job stopped): the list's Resume. False when the
    queue is down; InvalidTransition when it is not being closed, or not for long enough (``resumable``: a close
    running in a request or a job would get a second job beside it)."""
    require_role(membership, "member")
    if not milestone.is_closing:
        raise InvalidTransition("the milestone is not being closed", current=milestone.state)
    if not resumable(milestone):
        raise InvalidTransition("the milestone's close is running", current="closing")
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


def resumable(milestone: MilestoneItem) -> bool:
    """Resume is offered for a close "closing" longer than ``RESUME_AFTER`` (its job may have stopped); not for
    one running fine in a request (pressing Resume would start a job beside it)."""
    since = milestone.updated_at
    return milestone.is_closing and (since is None or utcnow() - since > RESUME_AFTER)


def target_still_open(target: MilestoneItem | None) -> None:
    """Read the close's target again (consistent GetItem, 1 RCU): TargetNotOpen when it stopped being open."""
    if target is None:
        return
    now = ddb_milestones.milestone_get(
        tenant=target.tenant, project_key=target.project_key, milestone_id=target.milestone_id
    )
    if now is None:
        raise TargetNotOpen(f"{target.name} was deleted meanwhile")
    if now.is_closing:
        raise TargetNotOpen(f"{now.name} is being closed as well")
    if not now.is_open:
        raise TargetNotOpen(f"{now.name} was closed meanwhile")


def target_of(milestone: MilestoneItem, to: str | None) -> MilestoneItem:
    target = (
        ddb_milestones.milestone_get(tenant=milestone.tenant, project_key=milestone.project_key, milestone_id=to)
        if to and to != milestone.milestone_id
        else None
    )
    if target is None or not target.is_open:
        raise InvalidInput("choose another open milestone of this project", to=to)
    return target


def move_issues(
    found: list[IssueItem],
    milestone: MilestoneItem,
    target: MilestoneItem | None,
    token: str,
    *,
    actor: str,
    moved: Closed | None = None,
) -> Closed:
    """Each issue out of ``milestone`` into ``target`` (or none): ``issue_change`` on the row's version; a row
    that changed since is read again (consistent GetItem) and tried once more. A move the target refuses in its
    own write (``MilestoneNotOpen``: the target was closed, or started closing, since it was read) stops the
    walk: ``Closed.why`` says so, and the close opens the milestone again. ``moved``: the close's outcome, whose
    count goes up with each move as it is made (a walk cut short by an error still counts what it moved)."""
    outcome = Closed(milestone=milestone)
    names = milestone_selectors.milestone_names(tenant=milestone.tenant, project_key=milestone.project_key)
    for issue in found:
        if issue.status not in OPEN_STATUSES:
            outcome.settled += 1  # done (a row read after its resolve): it stays where it was done
            continue
        try:
            done = _change_one(issue, target, token)
        except MilestoneNotOpen as error:
            name = error.name or (target.name if target else error.milestone)
            outcome.why = (
                f"{name} is being closed as well" if error.state == "closing" else f"{name} was closed meanwhile"
            )
            return outcome
        except (ChangedSinceRead, InvalidTransition) as error:
            outcome.refused[issue.reference] = "changed meanwhile" if isinstance(error, ChangedSinceRead) else "deleted"
            continue
        if done is not None and done.to_record:  # this close's move (its answer may have been lost), or a replay:
            data: dict[str, Any] = {  # recorded under the move's own key (its time, the close's token): once
                "changed": {
                    "milestone": [names.get(milestone.milestone_id, milestone.name), target.name if target else None]
                }
            }
            key = done.event_key(Kind.ISSUE_EDITED)
            activity.record(done.issue, kind=Kind.ISSUE_EDITED, actor=actor, data=data, key=key)
        if done is None or not done.changed:
            outcome.settled += 1  # moved by this close before (a lagging index still lists it) or elsewhere meanwhile
            continue
        outcome.moved += 1
        if moved is not None:
            moved.moved += 1
    return outcome


def _change_one(issue: IssueItem, target: MilestoneItem | None, token: str) -> ddb_issues.Change | None:
    """The issue's move (``Change``: this close's, or its replay), or None when it is not this milestone's to move."""
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
        if fresh.status not in OPEN_STATUSES:
            return None  # resolved or closed since the row was read: it stays in the milestone it was done in
        change = ddb_issues.issue_change(fresh, token=token, milestone=to)
    return change


def milestone_close_job(run: JobRun, *, tenant: str, project_key: str, milestone_id: str, actor: str) -> dict[str, Any]:
    """The close's job (task ``close_milestone``): see ``milestone_close_job.milestone_close_job``, which uses this
    module's moves (imported here when the job runs: that module imports this one)."""
    from tracker.services.milestone_close_job import milestone_close_job as job

    return job(run, tenant=tenant, project_key=project_key, milestone_id=milestone_id, actor=actor)
