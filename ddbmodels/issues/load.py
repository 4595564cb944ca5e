"""A bulk load of issues and their comments: BatchWriteItem under a WCU budget, checkpointed in ``jobs``.

The requests of each project come issue by issue (``import_requests``: the issue with its list-index
keys, its ``labels`` entries, then its comments); ``import_order`` interleaves the projects' streams
into the one order every run follows, so a resumed run skips exactly what was written.
``import_load`` writes them: GetItem the checkpoint (1 RCU), then BatchWriteItem 25 requests at a
time under ``max_wcu`` per second, saving the number written after each chunk (UpdateItem, 1 WCU,
under the job's fencing token; the job's item carries the team, so offboarding deletes it). Every
put is unconditional and its key fixed by the caller, so writing the same load twice overwrites and
adds nothing. Cost: 1 WCU per started KB of each item, plus the list-index entries of a live issue.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ddbmodels import jobs
from ddbmodels.comments import CommentItem
from ddbmodels.core import batch, capacity
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues.bulk import issue_requests
from ddbmodels.issues.model import IssueItem

Request = batch.Request
CHECKPOINT_WCU = 1.0  # the UpdateItem that saves the checkpoint after each chunk


def import_requests(issues: Iterable[tuple[IssueItem, Sequence[CommentItem]]]) -> list[Request]:
    """Every put of one project's load, issue by issue (each issue, its entries, then its comments).

    A label new to this process is registered first (``labels.registry_ensure``), as ``issue_requests`` does.
    """
    requests: list[Request] = []
    for issue, comments in issues:
        requests.extend(issue_requests(issue))
        requests.extend(batch.put(CommentItem.Meta.table_name, c.serialize()) for c in comments)
    return requests


def import_order(streams: Sequence[Sequence[Request]]) -> list[Request]:
    """The projects' streams in one order, every chunk of 25 mixing them (``core.batch.interleave``)."""
    return list(batch.interleave(streams))


@dataclass
class Loaded:
    """What a run wrote: requests (this run, and skipped as already written), chunks, WCU, time."""

    written: int = 0
    skipped: int = 0
    batches: int = 0
    wcu: float = 0.0  # DynamoDB's ConsumedCapacity for the puts
    seconds: float = 0.0
    chunks: list[list[Request]] = field(default_factory=list, repr=False)

    @property
    def rate(self) -> float:
        return self.wcu / self.seconds if self.seconds else 0.0


@capacity.access_pattern("issues.import")
def import_load(
    job: str,
    requests: Sequence[Request],
    *,
    tenant: str,
    max_wcu: float | None = None,
    restart: bool = False,
    on_batch: Callable[[int], None] | None = None,
    keep_chunks: bool = False,
) -> Loaded:
    """GetItem the checkpoint (1 RCU), then BatchWriteItem the requests not yet written, 25 each, under
    ``max_wcu`` per second, saving the checkpoint after each (UpdateItem, 1 WCU).

    ``restart`` ignores a saved checkpoint (everything is written again, overwriting the same
    items). ``on_batch(requests)`` reports progress; ``keep_chunks`` keeps what each chunk held.
    """
    state = None if restart else jobs.job_state(job)
    start = int(state.checkpoint) if state is not None and state.checkpoint else 0
    token = jobs.fence_acquire(job, uuid.uuid4().hex[:12], tenant=tenant)  # offboarding deletes it with the team
    done = Loaded(skipped=start)
    if start >= len(requests):
        return done
    # The checkpoint's own write comes out of the same budget: the bucket runs a little under it.
    bucket = TokenBucket(max_wcu) if max_wcu else None
    sent = start
    began = time.monotonic()

    def after(chunk: Sequence[Request], wcu: float) -> None:
        nonlocal sent
        sent += len(chunk)
        if bucket is not None:
            bucket.take(CHECKPOINT_WCU)
        jobs.checkpoint_save(job, token, str(sent))
        if keep_chunks:
            done.chunks.append(list(chunk))
        if on_batch is not None:
            on_batch(len(chunk))

    paced = batch.batch_write_paced(requests[start:], bucket=bucket, on_batch=after)
    done.seconds = time.monotonic() - began
    done.written, done.batches, done.wcu = paced.written, paced.batches, paced.wcu
    return done
