"""The preferences table: each person's saved views of a team, shared views, notification settings. See ``model``."""

from ddbmodels.preferences.model import (
    DEFAULT_LEVEL,
    KEY_ATTRIBUTES,
    LEVELS,
    NAME_MAX,
    QUERY_MAX,
    SHARED_MAX,
    VIEW_ID_RE,
    VIEWS_MAX,
    VIEWS_READ,
    NotifySetting,
    PreferenceItem,
    SavedView,
    person_key,
    team_key,
)
from ddbmodels.preferences.reads import notify_settings, settings_of, view_get, view_of, views_mine, views_shared
from ddbmodels.preferences.team import TEAM_DATA
from ddbmodels.preferences.writes import (
    notify_set,
    person_ensure,
    registry_forget,
    view_change,
    view_save,
    view_unshare_team,
)

__all__ = [
    "DEFAULT_LEVEL",
    "KEY_ATTRIBUTES",
    "LEVELS",
    "NAME_MAX",
    "QUERY_MAX",
    "SHARED_MAX",
    "TEAM_DATA",
    "VIEWS_MAX",
    "VIEWS_READ",
    "VIEW_ID_RE",
    "NotifySetting",
    "PreferenceItem",
    "SavedView",
    "notify_set",
    "notify_settings",
    "person_ensure",
    "person_key",
    "registry_forget",
    "settings_of",
    "team_key",
    "view_change",
    "view_get",
    "view_of",
    "view_save",
    "view_unshare_team",
    "views_mine",
    "views_shared",
]
