"""The events tables' lifecycle: the time-series pattern bound to the events family.

``rotate`` keeps the current and next month (week, day) hot and older tables cold; ``archive``
exports, verifies and drops the tables past retention; ``restore`` brings one back from its
archive. Costs are the pattern's (``patterns.time_series``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.events.model import EVENTS
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import ArchiveReport, Fence, PeriodKind, PeriodTable, RestoreReport, RotateReport


def events_table_name(kind: PeriodKind, when: datetime) -> str:
    """Physical name of the events table of the period holding ``when``: ``<prefix>events-<period id>``."""
    return EVENTS.table_name(kind, when)


def period_table_name(period: str) -> str:
    """Physical name of the events table of a period id (validated)."""
    return EVENTS.period_table_name(period)


def parse_events_table_name(name: str) -> tuple[PeriodKind, str, datetime] | None:
    """(kind, period id, start) when ``name`` is an events table under the current prefix, else None."""
    return EVENTS.parse_table_name(name)


def list_event_tables() -> list[PeriodTable]:
    """ListTables (free): the events tables of the current prefix, oldest period first."""
    return time_series.list_period_tables(EVENTS)


@capacity.access_pattern("time_series.rotate")
def rotate(kind: PeriodKind, now: datetime | None = None, **options: Any) -> RotateReport:
    """CreateTable / UpdateTable of the events tables (free, control plane).

    ``options`` are ``time_series.rotate``'s: ``hot``, ``cold`` (RCU, WCU) and ``billing_mode``.
    """
    return time_series.rotate(EVENTS, kind, now, **options)


@capacity.access_pattern("time_series.archive")
def archive(
    kind: PeriodKind, now: datetime | None, retention: int, store: ArchiveStore, *, fence: Fence, **options: Any
) -> list[ArchiveReport]:
    """Export ≈ 0.5 RCU per 4 KB, count 1 RCU per 4 KB, DeleteTable free, for every events table past retention.

    ``options`` are ``time_series.archive``'s: ``dry_run``, ``segments``, ``on_progress``,
    ``recheck_archived``.
    """
    return time_series.archive(EVENTS, kind, now, retention, store, fence=fence, **options)


def restore(store: ArchiveStore, archive_name: str, **options: Any) -> RestoreReport:
    """CreateTable from the archive's manifest, BatchWriteItem every event — 1 WCU per item ≤ 1 KB plus its
    ``by_day`` entry; a consistent COUNT Scan checks them all back (``time_series.restore``).

    ``options`` are the pattern's: ``table_name`` (default the archived name), ``billing_mode``,
    ``workers``, ``on_progress``.
    """
    return time_series.restore(store, archive_name, **options)
