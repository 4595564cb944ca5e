"""Counters for the order tests: one per test, so each can assert the numbers it hands out.

All tests share one orders table, and every counter starts at 1, so numbers repeat across
counters there (never in production, where the one ``orders`` counter numbers everything). A
test that looks an order up by number alone takes its numbers from a counter started at a
random height, where no other counter's numbers are.
"""

from __future__ import annotations

import random
import uuid

from ddbmodels.counters.model import CounterItem


def unique_counter(*, start_high: bool = False) -> str:
    """A counter name nobody else uses; with ``start_high`` its first number is far above any other's."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    if start_high:
        CounterItem(name, value=random.randrange(10**12, 10**14)).save()
    return name
