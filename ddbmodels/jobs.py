"""The jobs table: one item per maintenance job, holding its fencing token and checkpoint.

A Redis lock (with an expiry) keeps two runs of a job from overlapping in the common case; it
cannot protect against a run that stalls past its lock's expiry and then wakes up while a newer
run works. So each run also takes a *fencing token* here — an atomic ``ADD 1`` on the job's
item — and every destructive step first makes a write conditioned on the token still being its
own (``fence_check``). A stale run's check fails and it stops before doing harm (Kleppmann,
"How to do distributed locking"). Resumable jobs keep their checkpoint on the same item, written
under the same condition.
"""

from __future__ import annotations

from datetime import datetime

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.models import Model

from ddbmodels import capacity
from ddbmodels.connection import register
from ddbmodels.errors import DomainError, is_conditional_failure
from ddbmodels.issues import utcnow


class FencedOut(DomainError):
    """A newer run of this job holds the fencing token: this run must stop."""

    code = "fenced_out"


@register("jobs")
class JobItem(Model):
    """One maintenance job's coordination state."""

    class Meta:
        table_name = "jobs"
        read_capacity_units = 1
        write_capacity_units = 1

    job = UnicodeAttribute(hash_key=True, attr_name="j")
    token = NumberAttribute(attr_name="tk", default=0)
    owner = UnicodeAttribute(attr_name="ow", null=True)
    started_at = UTCDateTimeAttribute(attr_name="sa", null=True)
    fenced_at = UTCDateTimeAttribute(attr_name="fa", null=True)
    checkpoint = UnicodeAttribute(attr_name="cp", null=True)


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


@capacity.access_pattern("jobs.state")
def job_state(job: str) -> JobItem | None:
    """GetItem, consistent — 1 RCU. None before the job's first run."""
    try:
        return JobItem.get(job, consistent_read=True)
    except DoesNotExist:
        return None


@capacity.access_pattern("jobs.state")
def started_at(job: str) -> datetime | None:
    state = job_state(job)
    return state.started_at if state else None
