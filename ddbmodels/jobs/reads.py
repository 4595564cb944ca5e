"""Reading a job's coordination state (one consistent GetItem)."""

from __future__ import annotations

from datetime import datetime

from pynamodb.exceptions import DoesNotExist

from ddbmodels.core import capacity
from ddbmodels.jobs.model import JobItem


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


@capacity.access_pattern("jobs.by_tenant")
def tenant_job_names(tenant: str) -> list[str]:
    """Query ``by_tenant`` tn = tenant (sparse, KEYS_ONLY) — 0.5 RCU per 4 KB of keys, eventually consistent.

    The names of the team's own job items (written with ``tenant=``), sorted.
    """
    return sorted(item.job for item in JobItem.by_tenant.query(tenant))
