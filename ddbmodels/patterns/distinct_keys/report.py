"""What a listing found, did and cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ddbmodels.patterns.distinct_keys.table import Key


@dataclass
class Report:
    """What a listing did and what it cost. Capacity and requests are measured, never estimated."""

    table: str
    method: str  # the method actually used
    requested_method: str
    segments: int  # TotalSegments of the listing (1: serial)
    segment: int | None  # segment_keys: the one segment listed; None: all of them
    index_name: str | None
    distinct_keys: int
    requests: int  # every DynamoDB call: DescribeTable, the probe's Scans, the listing's Scans
    rcu: float  # ConsumedCapacity of all of them (auto: probe included)
    retries: int  # attempts botocore retried (throttling, 5xx), from ResponseMetadata.RetryAttempts
    seconds: float
    by_operation: dict[str, int] = field(default_factory=dict)
    estimates: dict[str, float] | None = None  # auto: estimated RCU per candidate method
    collections_estimate: float | None = None  # auto: the number of collections skip-scan's estimate used
    collections_source: str | None = None  # auto: "description", "index" or "probe"
    probe: dict[str, Any] | None = None  # auto, when DescribeTable could not decide: the probe
    reason: str | None = None  # why the method used differs from the one requested, or why auto chose it

    def as_dict(self) -> dict[str, Any]:
        """JSON-serializable (floats rounded to 3 places)."""
        return {
            "table": self.table,
            "method": self.method,
            "requested_method": self.requested_method,
            "segments": self.segments,
            "segment": self.segment,
            "index_name": self.index_name,
            "distinct_keys": self.distinct_keys,
            "requests": self.requests,
            "rcu": round(self.rcu, 3),
            "retries": self.retries,
            "seconds": round(self.seconds, 3),
            "by_operation": dict(self.by_operation),
            "estimates": {k: round(v, 3) for k, v in self.estimates.items()} if self.estimates is not None else None,
            "collections_estimate": (
                round(self.collections_estimate, 1) if self.collections_estimate is not None else None
            ),
            "collections_source": self.collections_source,
            "probe": dict(self.probe) if self.probe is not None else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Result:
    """The distinct partition keys, sorted (str by code point = DynamoDB's UTF-8 order), and the report."""

    keys: list[Key]
    report: Report
