"""The events tables (one per period): model, writes, reads and lifecycle. See ``model`` for the key design."""

from ddbmodels.events.lifecycle import (
    archive,
    events_table_name,
    list_event_tables,
    parse_events_table_name,
    period_table_name,
    restore,
    rotate,
)
from ddbmodels.events.model import (
    BASE,
    BY_DAY_INDEX,
    DEFAULT_PERIOD,
    DEFAULT_SHARDS,
    EVENTS,
    Event,
    PeriodClosed,
    day_key,
    event_from_item,
    event_item,
    from_attribute,
    new_sort_key,
    shard_of,
    sort_key_time,
    table_definition,
    to_attribute,
)
from ddbmodels.events.reads import stream_events, tenant_day_events
from ddbmodels.events.team import TEAM_DATA
from ddbmodels.events.writes import create_events_table, event_put, events_put_many

__all__ = [
    "BASE",
    "BY_DAY_INDEX",
    "DEFAULT_PERIOD",
    "DEFAULT_SHARDS",
    "EVENTS",
    "TEAM_DATA",
    "Event",
    "PeriodClosed",
    "archive",
    "create_events_table",
    "day_key",
    "event_from_item",
    "event_item",
    "event_put",
    "events_put_many",
    "events_table_name",
    "from_attribute",
    "list_event_tables",
    "new_sort_key",
    "parse_events_table_name",
    "period_table_name",
    "restore",
    "rotate",
    "shard_of",
    "sort_key_time",
    "stream_events",
    "table_definition",
    "tenant_day_events",
    "to_attribute",
]
