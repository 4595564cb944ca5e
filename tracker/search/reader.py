"""Reading DynamoDB page by page under an RCU budget: what ``rebuild`` and ``check`` read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ddbmodels import comments as ddb_comments
from ddbmodels.comments import CommentItem
from ddbmodels.core import capacity
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues import IssueItem, issue_collection_page, project_keys

ISSUE_PAGE = 100  # issues a rebuild reads per Query (≈ 1 KB each with the description: 12.5–25 RCU)
COMMENT_PAGE = 100

Progress = Callable[[str], None]


@dataclass
class Reader:
    """DynamoDB reads one request at a time, held to ``rcu_per_second`` (None: as fast as it answers)."""

    rcu_per_second: float | None
    meter: capacity.CapacityMeter = field(default_factory=capacity.CapacityMeter)

    def __post_init__(self) -> None:
        self._bucket = (
            TokenBucket(self.rcu_per_second, burst=max(self.rcu_per_second, 50.0)) if self.rcu_per_second else None
        )

    def read(self, call: Callable[[], Any]) -> Any:
        with capacity.measure() as used:
            answer = call()
        self.meter.add(used)
        if self._bucket is not None:
            self._bucket.take(used.rcu)  # waits off what this read cost before the next one
        return answer

    def issues(self, tenant: str, project_key: str, after: int) -> tuple[list[IssueItem], int | None]:
        return self.read(  # type: ignore[no-any-return]
            lambda: issue_collection_page(tenant=tenant, project_key=project_key, after=after, limit=ISSUE_PAGE)
        )

    def comments(self, tenant: str, project_key: str, number: int) -> list[CommentItem]:
        stream = ddb_comments.issue_stream(tenant, project_key, number)
        found: list[CommentItem] = []
        after: str | None = None
        while True:
            page = self.read(partial(ddb_comments.comment_page, stream=stream, size=COMMENT_PAGE, after=after))
            found.extend(page.comments)
            if not page.newer_than:
                return found
            after = page.newer_than


def projects_to_read(reader: Reader, tenant: str, project_key: str | None) -> list[str]:
    if project_key:
        return [project_key]
    return sorted(reader.read(lambda: project_keys(tenant=tenant)))
