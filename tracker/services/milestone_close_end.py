"""A milestone close's end, shared by the request (``milestone_close``) and its job (``milestone_close_job``): the
outcome kept on the milestone (``lr``, naming at most ``REFUSED_KEPT`` refused issues) and the write that ends the
close ("closed", or "open" again), tried again while a move's transaction holds the milestone.

Cost: the end, one UpdateItem on the version (``milestones.close``: 1 WCU), a few more when refused for a moment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ddbmodels import milestones as ddb_milestones
from ddbmodels.core import retry
from ddbmodels.core.errors import ChangedSinceRead, Contention, is_unavailable
from ddbmodels.core.keys import utcnow
from ddbmodels.milestones import MilestoneItem
from tracker.cache import invalidate
from tracker.selectors import milestones as milestone_selectors

if TYPE_CHECKING:
    from tracker.services.milestone_close import Closed

REFUSED_KEPT = 20  # refused issues a close's outcome names (the milestone's size feeds every move's ConditionCheck)
FINISH_BACKOFF = retry.Backoff(attempts=4, base_s=0.05, cap_s=0.5)  # the end's write, held by a move's transaction
BUSY = "the database was busy"


def busy(error: BaseException) -> bool:
    """A 503-class error: DynamoDB throttled or failing, or conflicting transactions every try (nothing written)."""
    return isinstance(error, Contention) or is_unavailable(error)


def changed(milestone: MilestoneItem) -> None:
    invalidate(milestone_selectors.milestones_cache_key(milestone.tenant, milestone.project_key))


def kept_outcome(
    actor: str, token: str, target: MilestoneItem | None, outcome: Closed, *, closed: bool
) -> dict[str, Any]:
    """What the milestone keeps of its close (``lr``; see ``MilestoneItem.close_outcome``)."""
    said: dict[str, Any] = {"by": actor, "at": utcnow().isoformat(), "token": token, "closed": closed}
    said["moved"] = outcome.moved
    if target is not None:
        said["to"] = target.name
    if outcome.refused:
        kept = sorted(outcome.refused)[:REFUSED_KEPT]
        said["refused"] = {ref: outcome.refused[ref] for ref in kept}
        if len(outcome.refused) > REFUSED_KEPT:
            said["refused_more"] = len(outcome.refused) - REFUSED_KEPT
    if outcome.why:
        said["why"] = outcome.why
    return said


def finish(
    milestone: MilestoneItem, state: str, expected_version: int, outcome: dict[str, Any] | None = None
) -> MilestoneItem:
    """A close's end: ``state`` (and the close's ``outcome``, kept on the milestone) on the version "closing" was
    read at; an edit of its name or due date meanwhile (the version moved, still closing) does not keep it closing
    for ever. Refused for a moment (an issue's move into the milestone holds it in a transaction, or throttled):
    tried again up to ``FINISH_BACKOFF.attempts`` times (the same write on the same version: idempotent)."""
    for attempt in retry.attempts(FINISH_BACKOFF):
        try:
            return _finish(milestone, state, expected_version, outcome)
        except Exception as error:
            if not busy(error) or attempt == FINISH_BACKOFF.attempts:
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


def _finish(
    milestone: MilestoneItem, state: str, expected_version: int, outcome: dict[str, Any] | None
) -> MilestoneItem:
    try:
        done = ddb_milestones.milestone_set_state(
            milestone, state=state, expected_version=expected_version, outcome=outcome
        )
    except ChangedSinceRead:
        fresh = ddb_milestones.milestone_get(
            tenant=milestone.tenant, project_key=milestone.project_key, milestone_id=milestone.milestone_id
        )
        if fresh is not None and fresh.state == state and _token(fresh.close_outcome()) == _token(outcome):
            return fresh  # this end was written by a try whose answer was lost
        if fresh is None or fresh.state != "closing":
            raise
        done = ddb_milestones.milestone_set_state(
            fresh, state=state, expected_version=int(fresh.version), outcome=outcome
        )
    changed(done)
    return done


def _token(outcome: dict[str, Any] | None) -> str | None:
    return (outcome or {}).get("token")
