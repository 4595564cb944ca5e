"""The milestones table: each project's milestones and their progress. See ``model`` for keys and costs."""

from ddbmodels.milestones.claims import ClaimsChecked, claims_check
from ddbmodels.milestones.model import (
    DESCRIPTION_MAX,
    ISSUE_STATUSES,
    MILESTONE_ID_RE,
    NAME_MAX,
    STATES,
    MilestoneItem,
    new_milestone_id,
    partition_key,
)
from ddbmodels.milestones.reads import MILESTONES_MAX, by_name, milestone_get, milestone_list
from ddbmodels.milestones.team import TEAM_DATA
from ddbmodels.milestones.writes import (
    NameTaken,
    TooMany,
    close_moved_write,
    milestone_create,
    milestone_set_state,
    milestone_update,
    progress_write,
)

__all__ = [
    "DESCRIPTION_MAX",
    "ISSUE_STATUSES",
    "MILESTONES_MAX",
    "MILESTONE_ID_RE",
    "NAME_MAX",
    "STATES",
    "TEAM_DATA",
    "ClaimsChecked",
    "MilestoneItem",
    "NameTaken",
    "TooMany",
    "by_name",
    "claims_check",
    "close_moved_write",
    "milestone_create",
    "milestone_get",
    "milestone_list",
    "milestone_set_state",
    "milestone_update",
    "new_milestone_id",
    "partition_key",
    "progress_write",
]
