"""``rotate``: the current and next periods' tables exist and are hot, older provisioned ones cold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.keys import as_utc, utcnow
from ddbmodels.core.tables import PAY_PER_REQUEST, PROVISIONED, provisioned_throughput
from ddbmodels.patterns.time_series.family import PeriodTables
from ddbmodels.patterns.time_series.periods import PeriodKind, period_shift
from ddbmodels.patterns.time_series.tables import PeriodTable, list_period_tables

DEFAULT_HOT = (25, 25)
DEFAULT_COLD = (1, 1)


@dataclass(frozen=True)
class RotateAction:
    table: str
    period: str
    action: str  # created | hot | cold | unchanged | on-demand | future | busy | limit-exceeded
    detail: str = ""

    def line(self) -> str:
        return f"{self.table}: {self.action}{f' — {self.detail}' if self.detail else ''}"


@dataclass
class RotateReport:
    kind: PeriodKind
    now: datetime
    current: str
    next: str
    actions: list[RotateAction] = field(default_factory=list)

    @property
    def created(self) -> list[str]:
        return [a.table for a in self.actions if a.action == "created"]

    @property
    def changed(self) -> list[str]:
        return [a.table for a in self.actions if a.action in ("hot", "cold")]

    @property
    def refused(self) -> list[str]:
        return [a.table for a in self.actions if a.action in ("busy", "limit-exceeded")]

    def lines(self) -> list[str]:
        return [a.line() for a in self.actions]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "now": self.now.isoformat(),
            "current": self.current,
            "next": self.next,
            "actions": [asdict(a) for a in self.actions],
        }


def _setprovisioned_throughput(table: Mapping[str, Any], target: tuple[int, int]) -> str:
    """UpdateTable of the table and its indexes to ``target`` where they differ (free); what changed."""
    update: dict[str, Any] = {}
    changes = []
    wanted = {"ReadCapacityUnits": target[0], "WriteCapacityUnits": target[1]}
    if provisioned_throughput(table) != target:
        update["ProvisionedThroughput"] = wanted
        changes.append(f"table {provisioned_throughput(table)[0]}/{provisioned_throughput(table)[1]}")
    index_updates = [
        {"Update": {"IndexName": index["IndexName"], "ProvisionedThroughput": wanted}}
        for index in table.get("GlobalSecondaryIndexes", [])
        if provisioned_throughput(index) != target
    ]
    if index_updates:
        update["GlobalSecondaryIndexUpdates"] = index_updates
        changes.append(f"{len(index_updates)} index(es)")
    if not update:
        return ""
    connection.client().update_table(TableName=table["TableName"], **update)
    return f"{target[0]}/{target[1]} RCU/WCU (was {', '.join(changes)})"


@capacity.access_pattern("time_series.rotate")
def rotate(
    family: PeriodTables,
    kind: PeriodKind,
    now: datetime | None = None,
    *,
    hot: tuple[int, int] = DEFAULT_HOT,
    cold: tuple[int, int] = DEFAULT_COLD,
    billing_mode: str = PAY_PER_REQUEST,
) -> RotateReport:
    """CreateTable for the current and next periods if missing, UpdateTable hot/cold — all free (control plane).

    New tables are created in ``billing_mode``; provisioned ones start hot, so the first writes
    after the rollover are not throttled even if rotation runs late (the price: the next table's
    hot capacity is paid for one period ahead). Existing provisioned tables (whatever
    ``billing_mode`` says now) get ``hot`` when current or next and ``cold`` when older —
    table and indexes alike, one UpdateTable, skipped when already there. DynamoDB limits
    decreases per day: a LimitExceededException is reported as such and the table left as it
    is; a table that is not ACTIVE is reported busy. Tables beyond the next period are left.
    """
    now = utcnow() if now is None else as_utc(now)
    tables.check_billing_mode(billing_mode)
    current = family.table_name(kind, now)
    following = family.table_name(kind, period_shift(kind, now, 1))
    report = RotateReport(kind, now, current, following)
    created = set()
    for name in (current, following):
        if family.create(name, billing_mode=billing_mode, throughput=hot, wait=False):
            created.add(name)
    how = f"{billing_mode} {hot[0]}/{hot[1]} RCU/WCU" if billing_mode == PROVISIONED else billing_mode
    for name in created:
        tables.wait_active(name)
    horizon = period_shift(kind, now, 2)  # end of the next period
    for table in list_period_tables(family):
        if table.name in created:
            report.actions.append(RotateAction(table.name, table.period, "created", how))
            continue
        if table.end > horizon:
            report.actions.append(RotateAction(table.name, table.period, "future", "beyond the next period"))
            continue
        description = tables.describe_table(table.name)
        if description is None:
            continue  # dropped since ListTables (archived by a concurrent job)
        target = hot if table.name in (current, following) else cold
        report.actions.append(_rotate_one(table, description, target, "hot" if target is hot else "cold"))
    return report


def _rotate_one(
    table: PeriodTable, description: Mapping[str, Any], target: tuple[int, int], label: str
) -> RotateAction:
    if description.get("BillingModeSummary", {}).get("BillingMode") == PAY_PER_REQUEST:
        return RotateAction(table.name, table.period, "on-demand", "no throughput to set")
    busy = [description["TableStatus"], *(i["IndexStatus"] for i in description.get("GlobalSecondaryIndexes", []))]
    if any(status != "ACTIVE" for status in busy):
        return RotateAction(table.name, table.period, "busy", f"status {'/'.join(busy)}; next run retries")
    try:
        changed = _setprovisioned_throughput(description, target)
    except ClientError as error:
        code, message = tables.error_code(error), error.response.get("Error", {}).get("Message", "")
        if code == "LimitExceededException":
            return RotateAction(
                table.name,
                table.period,
                "limit-exceeded",
                f"DynamoDB refused to set {label} {target[0]}/{target[1]} ({message}); left as it is, "
                "decreases are limited per day — the next run tries again",
            )
        if code == "ResourceInUseException":
            return RotateAction(table.name, table.period, "busy", message)
        raise
    if not changed:
        return RotateAction(table.name, table.period, "unchanged", f"already {label} {target[0]}/{target[1]}")
    return RotateAction(table.name, table.period, label, changed)
