"""Reading a counter's last number (one GetItem)."""

from __future__ import annotations

from ddbmodels.core import capacity
from ddbmodels.counters.model import CounterItem
from ddbmodels.patterns import counters


@capacity.access_pattern("counters.value")
def counter_value(name: str, *, consistent: bool = True) -> int:
    """GetItem — 1 RCU consistent (0.5 eventually). The last value handed out, 0 for a new counter."""
    return counters.counter_value(CounterItem, name, consistent=consistent)
