"""Table registry: create every missing table (with its indexes), describe, delete.

Creation is idempotent: an existing table is left as it is. Billing mode is a choice:
PAY_PER_REQUEST (on-demand, the default) or PROVISIONED with given read/write units applied
to the table and each of its global indexes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pynamodb.models import Model

from ddbmodels import (  # noqa: F401  (importing a table module registers it)
    attachments,
    counters,
    issues,
    jobs,
    orders,
    scores,
)
from ddbmodels.connection import registered

PAY_PER_REQUEST = "PAY_PER_REQUEST"
PROVISIONED = "PROVISIONED"


@dataclass(frozen=True)
class TableReport:
    base: str
    name: str
    created: bool
    status: str


def _with_throughput(model: type[Model], rcu: int, wcu: int) -> None:
    model.Meta.read_capacity_units = rcu
    model.Meta.write_capacity_units = wcu
    for index in model._indexes.values():
        index.Meta.read_capacity_units = rcu  # type: ignore[attr-defined]
        index.Meta.write_capacity_units = wcu  # type: ignore[attr-defined]


def create_all(
    *, billing_mode: str = PAY_PER_REQUEST, rcu: int = 5, wcu: int = 5, wait: bool = True
) -> list[TableReport]:
    """CreateTable for each registered table that does not exist yet (free), then wait for ACTIVE."""
    if billing_mode not in (PAY_PER_REQUEST, PROVISIONED):
        raise ValueError(f"billing mode must be {PAY_PER_REQUEST} or {PROVISIONED}")
    reports = []
    for base, model in sorted(registered().items()):
        created = False
        if not model.exists():
            _with_throughput(model, rcu, wcu)
            model.create_table(
                wait=False,
                billing_mode=billing_mode,
                read_capacity_units=rcu,
                write_capacity_units=wcu,
            )
            created = True
        reports.append(TableReport(base, model.Meta.table_name, created, "CREATING" if created else ""))
    if wait:
        reports = [TableReport(r.base, r.name, r.created, wait_active(registered()[r.base])) for r in reports]
    return reports


def wait_active(model: type[Model], timeout_s: float = 300.0) -> str:
    """DescribeTable until the table and all its indexes are ACTIVE (free)."""
    deadline = time.monotonic() + timeout_s
    while True:
        table = describe(model)
        indexes = table.get("GlobalSecondaryIndexes", [])
        if table["TableStatus"] == "ACTIVE" and all(i["IndexStatus"] == "ACTIVE" for i in indexes):
            return "ACTIVE"
        if time.monotonic() > deadline:
            raise TimeoutError(f"{model.Meta.table_name} not ACTIVE after {timeout_s:.0f}s")
        time.sleep(0.5)


def describe(model: type[Model]) -> dict[str, Any]:
    """DescribeTable (free): status, key schema, indexes, item count, size, billing."""
    return model._get_connection().connection.describe_table(model.Meta.table_name)


def delete_all() -> list[str]:
    """DeleteTable for every registered table that exists (free, whatever the table holds)."""
    deleted = []
    for model in registered().values():
        if model.exists():
            model.delete_table()
            deleted.append(model.Meta.table_name)
    return deleted
