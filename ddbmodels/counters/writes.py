"""Taking the next number of a counter: one atomic ``ADD``."""

from __future__ import annotations

from ddbmodels.core import capacity
from ddbmodels.counters.model import CounterItem
from ddbmodels.patterns import counters


@capacity.access_pattern("counters.next")
def counter_next(name: str) -> int:
    """UpdateItem ``ADD v :1`` ReturnValues=UPDATED_NEW — 1 WCU. The new value (1 for a new counter)."""
    return counters.counter_next(CounterItem, name)
