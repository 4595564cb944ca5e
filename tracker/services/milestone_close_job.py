"""The close job of a milestone (task ``close_milestone``): more open issues than a request moves, or Resume.

Split from ``milestone_close`` (the request's close), whose moves, target check and end it uses.
"""

from __future__ import annotations

import logging
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from ddbmodels.milestones import MilestoneItem
from tracker.jobs import JobRun
from tracker.services import milestone_close as closing
from tracker.services.issues import schedule_counts

log = logging.getLogger(__name__)


def milestone_close_job(run: JobRun, *, tenant: str, project_key: str, milestone_id: str, actor: str) -> dict[str, Any]:
    """The job a close with more than ``MOVE_IN_REQUEST`` open issues starts, or Resume (task ``close_milestone``,
    job ``milestone_close:<team>:<PROJECT>:<id>``, the team's): where the issues go and the close's token are the
    milestone's (``ct``, ``ck``, set with "closing"). Walks the milestone's ``milestone_status`` partitions (open,
    in progress) page by page to their end, moving each issue, and walks them again until a walk moves nothing
    (resumable: a moved issue leaves them; rows a lagging index still lists are replayed and count as done). The
    target is read again (consistent GetItem, 1 RCU) before each page: closed (or closing) meanwhile, the job stops
    and the milestone opens again. Issues refused for real keep it open too. The count starts from what the close
    moved before (``cm``: the request's before it handed over, a stopped run's) and is kept there after each page
    that moved some (1 WCU). Whatever the end, the milestone keeps its outcome (``lr``: who, moved, what was
    refused, why) and its list row says it: the job tells nobody else."""
    milestone = ddb_milestones.milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone_id)
    if milestone is None or not milestone.is_closing:
        return {"moved": 0, "closed": False}  # closed (or opened) already: a job run twice
    token = milestone.close_token or ""
    outcome = closing.Closed(milestone=milestone, moved=int(milestone.close_moved or 0))  # the request's, a run's
    if not token:  # made "closing" before the close kept its choice: open again, to close anew
        outcome.why = "no close was recorded (an older version's): close it again"
        closing.finish(
            milestone, "open", int(milestone.version), closing.kept_outcome(actor, token, None, outcome, closed=False)
        )
        log.warning("milestone %s of %s/%s: no close recorded; opened again", milestone_id, tenant, project_key)
        return {"moved": 0, "refused": 0, "closed": False, "reopened": "no close recorded"}
    target = (
        ddb_milestones.milestone_get(tenant=tenant, project_key=project_key, milestone_id=milestone.close_to)
        if milestone.close_to
        else None
    )
    try:
        closing.target_still_open(target)  # closed since the close began (or, with an id, gone)
        if milestone.close_to and target is None:
            raise closing.TargetNotOpen("the milestone its issues were to move to was deleted meanwhile")
    except closing.TargetNotOpen as stop:
        outcome.why = stop.why
    if not outcome.why:
        _walks(run, milestone, target, actor, outcome)
    project = ddb_issues.project_get(tenant=tenant, key=project_key)
    if project is not None and outcome.moved:
        schedule_counts(project)
    done = not outcome.refused and not outcome.why
    closing.finish(
        milestone,
        "closed" if done else "open",
        int(milestone.version),
        closing.kept_outcome(actor, token, target, outcome, closed=done),
    )
    if outcome.why:
        log.warning("milestone %s of %s/%s not closed: %s", milestone_id, tenant, project_key, outcome.why)
        return {"moved": outcome.moved, "refused": len(outcome.refused), "closed": False, "target": "closed"}
    if outcome.refused:
        log.warning(
            "milestone %s of %s/%s not closed: %d refused", milestone_id, tenant, project_key, len(outcome.refused)
        )
        return {
            "moved": outcome.moved,
            "refused": len(outcome.refused),
            "refused_issues": outcome.refused,
            "closed": False,
        }
    return {"moved": outcome.moved, "refused": 0, "closed": True}


def _walks(
    run: JobRun, milestone: MilestoneItem, target: MilestoneItem | None, actor: str, outcome: closing.Closed
) -> None:
    """The job's walks (see ``milestone_close_job``) into ``outcome``: moved, refused, why it stopped."""
    tenant, project_key, milestone_id = milestone.tenant, milestone.project_key, milestone.milestone_id
    token = milestone.close_token or ""
    while True:
        moved_now, outcome.refused = 0, {}
        for status in closing.OPEN_STATUSES:
            start: dict[str, Any] | None = None
            while True:
                run.fence()
                try:
                    closing.target_still_open(target)
                except closing.TargetNotOpen as stop:
                    outcome.why = stop.why
                    outcome.moved += moved_now
                    return
                page = ddb_issues.status_list(
                    tenant=tenant,
                    project_key=project_key,
                    status=status,
                    milestone=milestone_id,
                    size=closing.MOVE_IN_REQUEST,
                    start=start,
                )
                for issue in page.issues:
                    issue.milestone = milestone_id  # the index's key names it; no index projects ``ms``
                walk = closing.move_issues(page.issues, milestone, target, token, actor=actor)
                moved_now += walk.moved
                if walk.moved:  # so far, for the end (also of a run resumed after this one stopped)
                    ddb_milestones.close_moved_write(milestone, token=token, moved=outcome.moved + moved_now)
                # a deleted issue is out of the milestone: only the others keep it open
                outcome.refused.update({ref: why for ref, why in walk.refused.items() if why != "deleted"})
                run.progress(moved=outcome.moved + moved_now, refused=len(outcome.refused))
                if walk.why:
                    outcome.why = walk.why
                    outcome.moved += moved_now
                    return
                start = page.next_key
                if start is None:
                    break
        outcome.moved += moved_now
        if not moved_now:
            return  # a whole walk changed nothing: every row left is done already or refused
