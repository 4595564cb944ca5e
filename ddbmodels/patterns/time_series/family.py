"""A family of per-period tables: ``<prefix><base><period id>``, all made from one definition.

The time-series pattern knows no table: a table package describes its family once (the base
name and how to create one period's table) and hands it to ``rotate``, ``archive`` and
``list_period_tables``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ddbmodels.core import connection, tables
from ddbmodels.core.tables import DEFAULT_THROUGHPUT, PAY_PER_REQUEST
from ddbmodels.patterns.time_series.periods import PeriodKind, parse_period_id, period_id

# (name, billing_mode, (RCU, WCU)) → the CreateTable arguments of one period's table
Definition = Callable[[str, str, tuple[int, int]], dict[str, Any]]


@dataclass(frozen=True)
class PeriodTables:
    """One table per period, named ``<prefix><base><period id>`` and created from ``definition``."""

    base: str
    definition: Definition
    default_throughput: tuple[int, int] = DEFAULT_THROUGHPUT

    @property
    def prefix(self) -> str:
        """Physical names of the family start with this (the deployment prefix, then ``base``)."""
        return connection.table_name(self.base)

    def table_name(self, kind: PeriodKind, when: datetime) -> str:
        """Physical name of the table of the period holding ``when``."""
        return self.period_table_name(period_id(kind, when))

    def period_table_name(self, period: str) -> str:
        """Physical name of the table of a period id (validated)."""
        parse_period_id(period)
        return connection.table_name(f"{self.base}{period}")

    def parse_table_name(self, name: str) -> tuple[PeriodKind, str, datetime] | None:
        """(kind, period id, start) when ``name`` is a table of this family under the current prefix."""
        if not name.startswith(self.prefix):
            return None
        try:
            kind, start = parse_period_id(name[len(self.prefix) :])
        except ValueError:
            return None
        return kind, name[len(self.prefix) :], start

    def create(
        self,
        name: str,
        *,
        billing_mode: str = PAY_PER_REQUEST,
        throughput: tuple[int, int] | None = None,
        wait: bool = True,
    ) -> bool:
        """CreateTable (free), idempotent: True when this call created it; then waits for ACTIVE."""
        tables.check_billing_mode(billing_mode)
        definition = self.definition(name, billing_mode, throughput or self.default_throughput)
        return tables.create_table(definition, wait=wait)
