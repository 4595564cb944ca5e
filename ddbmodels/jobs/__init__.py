"""The jobs table: each maintenance job's fencing token and checkpoint."""

from ddbmodels.jobs.model import (
    BY_TENANT_INDEX,
    FencedOut,
    JobItem,
)
from ddbmodels.jobs.reads import (
    job_state,
    started_at,
    tenant_job_names,
)
from ddbmodels.jobs.team import TEAM_DATA
from ddbmodels.jobs.writes import (
    checkpoint_replace,
    checkpoint_save,
    fence_acquire,
    fence_check,
)

__all__ = [
    "BY_TENANT_INDEX",
    "TEAM_DATA",
    "FencedOut",
    "JobItem",
    "checkpoint_replace",
    "checkpoint_save",
    "fence_acquire",
    "fence_check",
    "job_state",
    "started_at",
    "tenant_job_names",
]
