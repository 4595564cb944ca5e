"""Writing a job's coordination state: the fencing token, the fence check, the checkpoint."""

from __future__ import annotations

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.update import Action

from ddbmodels.core import capacity
from ddbmodels.core.errors import InvalidInput, is_conditional_failure
from ddbmodels.core.keys import TENANT_SLUG_RE, utcnow
from ddbmodels.jobs.model import FencedOut, JobItem


@capacity.access_pattern("jobs.fence")
def fence_acquire(job: str, owner: str, *, tenant: str | None = None) -> int:
    """UpdateItem ADD token 1, SET owner, ReturnValues ALL_NEW — 1 WCU (+ 1 for the index entry the
    first time ``tenant`` is set). The run's token.

    ``tenant``: the job's item belongs to that team (its data, its name) and is SET ``tn``, so the
    ``by_tenant`` index finds it and offboarding deletes it with the team. This is the only write
    that creates a job item (the others are conditioned on its token), so it is where a team's
    item is tagged; a call without ``tenant`` leaves a tag set earlier as it is, and an item
    written before tags existed stays untagged. Never give a team to a job that must outlive it
    (``offboard_tenant:<slug>``).
    """
    actions: list[Action] = [JobItem.token.add(1), JobItem.owner.set(owner), JobItem.started_at.set(utcnow())]
    if tenant is not None:
        if not TENANT_SLUG_RE.match(tenant):
            raise InvalidInput(f"invalid tenant {tenant!r}", tenant=tenant)
        actions.append(JobItem.tenant.set(tenant))
    item = JobItem(job)
    item.update(actions=actions)
    return int(item.token)


@capacity.access_pattern("jobs.fence")
def fence_check(job: str, token: int) -> None:
    """UpdateItem SET fenced_at if token = :mine — 1 WCU. Raises FencedOut for a stale run."""
    try:
        JobItem(job).update(
            actions=[JobItem.fenced_at.set(utcnow())],
            condition=JobItem.token == token,
        )
    except UpdateError as error:
        if is_conditional_failure(error):
            raise FencedOut(f"a newer run of {job} took over", job=job, token=token) from error
        raise


@capacity.access_pattern("jobs.checkpoint")
def checkpoint_save(job: str, token: int, checkpoint: str | None) -> None:
    """UpdateItem SET (or REMOVE) checkpoint if token = :mine — 1 WCU. Raises FencedOut."""
    action = JobItem.checkpoint.set(checkpoint) if checkpoint is not None else JobItem.checkpoint.remove()
    try:
        JobItem(job).update(actions=[action], condition=JobItem.token == token)
    except UpdateError as error:
        if is_conditional_failure(error):
            raise FencedOut(f"a newer run of {job} took over", job=job, token=token) from error
        raise


@capacity.access_pattern("jobs.checkpoint")
def checkpoint_replace(job: str, seen: str, new: str | None) -> bool:
    """UpdateItem SET (or REMOVE) checkpoint if checkpoint = ``seen`` — 1 WCU. Whether it was replaced.

    Not a run's own write (that is ``checkpoint_save``, under its token): for a job shared by every team
    (``backfill_project_counts``, ``upgrade_search``) whose checkpoint names a team being offboarded. A run
    that moved on meanwhile wrote another checkpoint, which is left alone (False).
    """
    action = JobItem.checkpoint.set(new) if new is not None else JobItem.checkpoint.remove()
    try:
        JobItem(job).update(actions=[action], condition=JobItem.checkpoint == seen)
    except UpdateError as error:
        if is_conditional_failure(error):
            return False
        raise
    return True
