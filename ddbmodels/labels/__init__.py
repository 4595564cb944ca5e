"""The labels table: an issue's label entries keyed per label, and each team's label registry. See ``model``."""

from ddbmodels.labels.model import (
    KEY_ATTRIBUTES,
    STATUSES,
    IssueRow,
    LabelEntry,
    entries_for,
    entry_keys,
    entry_sort,
    issue_of,
    label_key,
    label_prefix,
)
from ddbmodels.labels.reads import entry_page, team_labels
from ddbmodels.labels.team import TEAM_DATA
from ddbmodels.labels.writes import (
    entries_move,
    entry_delete,
    entry_put,
    registry_ensure,
    registry_forget,
    registry_item,
)

__all__ = [
    "KEY_ATTRIBUTES",
    "STATUSES",
    "TEAM_DATA",
    "IssueRow",
    "LabelEntry",
    "entries_for",
    "entries_move",
    "entry_delete",
    "entry_keys",
    "entry_page",
    "entry_put",
    "entry_sort",
    "issue_of",
    "label_key",
    "label_prefix",
    "registry_ensure",
    "registry_forget",
    "registry_item",
    "team_labels",
]
