"""The counters table: one item per named counter (the orders' global numbers)."""

from ddbmodels.counters.model import (
    ORDERS_COUNTER,
    CounterItem,
)
from ddbmodels.counters.reads import (
    counter_value,
)
from ddbmodels.counters.team import TEAM_DATA
from ddbmodels.counters.writes import (
    counter_next,
)

__all__ = [
    "ORDERS_COUNTER",
    "TEAM_DATA",
    "CounterItem",
    "counter_next",
    "counter_value",
]
