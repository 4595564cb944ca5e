"""Writing a job's coordination state: the fencing token, the fence check, the checkpoint."""

from __future__ import annotations

from pynamodb.exceptions import UpdateError

from ddbmodels.core import capacity
from ddbmodels.core.errors import is_conditional_failure
from ddbmodels.core.keys import utcnow
from ddbmodels.jobs.model import FencedOut, JobItem


@capacity.access_pattern("jobs.fence")
def fence_acquire(job: str, owner: str) -> int:
    """UpdateItem ADD token 1, SET owner, ReturnValues ALL_NEW — 1 WCU. The run's token."""
    item = JobItem(job)
    item.update(
        actions=[JobItem.token.add(1), JobItem.owner.set(owner), JobItem.started_at.set(utcnow())],
    )
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
