"""DynamoDB capacity as the admin's Capacity page shows it: the rolling Redis figures of ``tracker.capacity_stats``."""

from __future__ import annotations

from ddbmodels.core import capacity
from tracker.capacity_stats import KEEP_DAYS, Kind, Row, totals

__all__ = ["KEEP_DAYS", "Row", "capacity_totals", "stated_costs"]


def capacity_totals(kind: Kind) -> list[Row]:
    """Capacity by access pattern, job, page or API token over the last KEEP_DAYS days, largest first (1 Redis read)."""
    return totals(kind)


def stated_costs() -> dict[str, list[str]]:
    """Each access pattern's stated costs (from its docstring), by pattern name: no call, no Redis."""
    return capacity.stated_costs()
