"""Plan a provisioned table's partitions: how many DynamoDB would use, and what each one serves.

    python manage.py capacity_plan --rcu 5000 --wcu 2000 --size-gb 12
    python manage.py capacity_plan --rcu 1000 --wcu 500 --table issues   # a real table: warns on dilution

Partitions = max(⌈R/3000 + W/1000⌉, ⌈G/10⌉), at least 1 (``ddbmodels.core.partitions``). With
``--table`` (the full name, or the name under the app's prefix) the command also reads the table
(DescribeTable, free) and prints its own figures, then what the given RCU/WCU would give each of
the partitions it already has — DynamoDB never merges partitions, so turning a table down after
a peak leaves each partition less than a fresh table would get.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ddbmodels.core import connection, partitions, tables
from ddbmodels.core.errors import DomainError


def _n(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:,.2f}"


def plan_lines(result: partitions.Plan) -> list[str]:
    return [
        f"  partitions: {result.partitions} (throughput needs {result.by_throughput}, "
        f"size needs {result.by_size}; set by {result.limited_by})",
        f"  per partition: {_n(result.rcu_per_partition)} RCU, {_n(result.wcu_per_partition)} WCU",
        f"  burst: a partition keeps up to {partitions.BURST_SECONDS} s of unused capacity "
        f"({_n(result.burst_rcu)} RCU, {_n(result.burst_wcu)} WCU) for short spikes — not to plan on",
    ]


class Command(BaseCommand):
    help = (
        "Partitions DynamoDB would use for R RCU, W WCU and G GB, and the RCU/WCU each gets; "
        "with --table, the same for a real table and a warning when a decrease would dilute throughput."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rcu", type=float, help="read capacity units (with --table: default, the table's)")
        parser.add_argument("--wcu", type=float, help="write capacity units (with --table: default, the table's)")
        parser.add_argument("--size-gb", type=float, help="data size in GB (with --table: default, the table's)")
        parser.add_argument("--table", metavar="NAME", help="a real table: its full name or its name under the prefix")
        parser.add_argument("--peak-rcu", type=float, help="the highest RCU the table ever had, when you know it")
        parser.add_argument("--peak-wcu", type=float, help="the highest WCU the table ever had, when you know it")

    def handle(self, *args: Any, **options: Any) -> None:
        rcu, wcu, size_gb = options["rcu"], options["wcu"], options["size_gb"]
        table = options["table"]
        if table is None and None in (rcu, wcu, size_gb):
            raise CommandError("give --rcu, --wcu and --size-gb (or --table NAME to read a real table)")
        try:
            description = self._describe(table) if table else None
            if description is not None:
                current = partitions.assess(description)
                rcu = current.current.rcu if rcu is None else rcu
                wcu = current.current.wcu if wcu is None else wcu
                size_gb = current.size_gb if size_gb is None else size_gb
            result = partitions.plan(rcu, wcu, size_gb)
            self.stdout.write(f"Plan for {_n(rcu)} RCU, {_n(wcu)} WCU, {size_gb:g} GB:")
            self.stdout.write("\n".join(plan_lines(result)))
            if description is not None:
                self._table(description, rcu, wcu, options["peak_rcu"], options["peak_wcu"])
        except DomainError as error:
            raise CommandError(str(error)) from error

    def _describe(self, name: str) -> dict[str, Any]:
        description = tables.describe_table(name)
        prefixed = connection.current().table_prefix + name
        if description is None and not name.startswith(connection.current().table_prefix):
            description = tables.describe_table(prefixed)
        if description is None:
            raise CommandError(f"no table {name!r} (nor {prefixed!r}) on {connection.current().endpoint_url or 'AWS'}")
        return description

    def _table(self, description: dict[str, Any], rcu: float, wcu: float, peak_rcu: Any, peak_wcu: Any) -> None:
        found = partitions.assess(description, rcu=rcu, wcu=wcu, peak_rcu=peak_rcu, peak_wcu=peak_wcu)
        now = found.current
        billing = "on demand" if found.on_demand else f"provisioned {_n(now.rcu)} RCU, {_n(now.wcu)} WCU"
        self.stdout.write(
            f"Table {found.table} (DescribeTable, free): {billing}, {found.size_gb:.3f} GB, {found.items} items"
        )
        self.stdout.write("\n".join(plan_lines(now)))
        if found.last_increase or found.last_decrease:
            self.stdout.write(
                f"  last increase: {found.last_increase or '-'}; last decrease: {found.last_decrease or '-'}; "
                f"decreases today: {found.decreases_today}"
            )
        if found.rcu_per_partition is not None and found.wcu_per_partition is not None:
            self.stdout.write(
                f"  with {_n(rcu)} RCU, {_n(wcu)} WCU on its at least {found.kept_partitions} partition(s): "
                f"{_n(found.rcu_per_partition)} RCU, {_n(found.wcu_per_partition)} WCU each"
            )
        for warning in found.warnings:
            self.stdout.write(f"warning: {warning}")
