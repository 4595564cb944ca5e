"""Helpers of the history and activity-feed tests: events tables of chosen days, dropped after the test."""

from __future__ import annotations

import contextlib
from datetime import datetime

from ddbmodels import events
from ddbmodels.core import connection


def drop_day_tables(days: list[datetime]) -> None:
    """DeleteTable the events tables (EVENTS_PERIOD="day") of ``days`` that exist (other tests' archive jobs
    must not see a test's tables)."""
    client = connection.client()
    for day in days:
        with contextlib.suppress(client.exceptions.ResourceNotFoundException):
            client.delete_table(TableName=events.events_table_name("day", day))
