"""Partition planner: how many partitions a provisioned table gets, and what each can serve.

A partition serves at most 3,000 RCU or 1,000 WCU (any mix: R/3000 + W/1000 ≤ 1) and holds
about 10 GB, so a table needs max(⌈R/3000 + W/1000⌉, ⌈GB/10⌉) partitions, at least one, and
its provisioned throughput is split evenly across them. Growing the throughput past what the
partitions serve splits them (DynamoDB doubles the count); growing the data splits the full one.

Assumption stated once, used everywhere here: **DynamoDB never merges partitions.** A table
turned down after a peak keeps the partitions the peak made, so the lower throughput is divided
by more partitions than a fresh table with the same setting would have: each partition (and so
each partition key) gets less. DescribeTable does not show the partition count or the past peak;
it does show that decreases happened (``LastDecreaseDateTime``, ``NumberOfDecreasesToday``), so
the warning says so whenever the peak is not known. All of this is arithmetic on a DescribeTable
answer (free); nothing here calls DynamoDB.

On-demand tables have no provisioned throughput to divide: DynamoDB adds partitions as traffic
and data grow (it serves up to double the previous peak at once), so only the size bound applies.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ddbmodels.core.errors import InvalidInput

RCU_PER_PARTITION = 3000
WCU_PER_PARTITION = 1000
GB_PER_PARTITION = 10
BURST_SECONDS = 300  # unused capacity DynamoDB keeps for bursts: up to 5 minutes' worth
GB = 1024**3
PAY_PER_REQUEST = "PAY_PER_REQUEST"


@dataclass(frozen=True)
class Plan:
    """Partitions for R RCU, W WCU and G GB, and the throughput each partition gets."""

    rcu: int
    wcu: int
    size_gb: float
    by_throughput: int
    by_size: int
    partitions: int

    @property
    def rcu_per_partition(self) -> float:
        return self.rcu / self.partitions

    @property
    def wcu_per_partition(self) -> float:
        return self.wcu / self.partitions

    @property
    def limited_by(self) -> str:
        """ "throughput" or "size": which bound sets the count (throughput when they tie)."""
        return "size" if self.by_size > self.by_throughput else "throughput"

    @property
    def burst_rcu(self) -> int:
        """Read units a partition can save for a burst: 300 s of its share, when unused."""
        return round(self.rcu_per_partition * BURST_SECONDS)

    @property
    def burst_wcu(self) -> int:
        return round(self.wcu_per_partition * BURST_SECONDS)


def _ceil(value: float) -> int:
    # round first: 0.1 + 0.2 style float noise must not add a partition (3000/3000 + 0/1000 == 1)
    return math.ceil(round(value, 9))


def plan(rcu: float, wcu: float, size_gb: float) -> Plan:
    """max(⌈R/3000 + W/1000⌉, ⌈G/10⌉) partitions, at least 1, and RCU/WCU per partition.

    Pure arithmetic, no DynamoDB call. InvalidInput for a negative or non-finite figure.
    """
    for name, value in (("RCU", rcu), ("WCU", wcu), ("size in GB", size_gb)):
        if not math.isfinite(value) or value < 0:
            raise InvalidInput(f"{name} must be a number ≥ 0, got {value!r}")
    by_throughput = _ceil(rcu / RCU_PER_PARTITION + wcu / WCU_PER_PARTITION)
    by_size = _ceil(size_gb / GB_PER_PARTITION)
    partitions = max(by_throughput, by_size, 1)
    return Plan(int(rcu), int(wcu), float(size_gb), by_throughput, by_size, partitions)


@dataclass(frozen=True)
class Assessment:
    """A table's partitions as far as DescribeTable tells, and what a new setting would give each."""

    table: str
    on_demand: bool
    size_gb: float
    items: int
    current: Plan  # the table's setting as DescribeTable shows it
    kept_partitions: int  # at least this many exist: partitions are never merged
    proposed: Plan | None  # a fresh table with the proposed setting
    rcu_per_partition: float | None  # the proposed (or current) RCU spread over the kept partitions
    wcu_per_partition: float | None
    last_increase: datetime | None
    last_decrease: datetime | None
    decreases_today: int
    warnings: list[str] = field(default_factory=list)


def size_gb_of(description: Mapping[str, Any]) -> float:
    return float(description.get("TableSizeBytes", 0) or 0) / GB


def assess(
    description: Mapping[str, Any],
    *,
    rcu: float | None = None,
    wcu: float | None = None,
    peak_rcu: float | None = None,
    peak_wcu: float | None = None,
) -> Assessment:
    """From a DescribeTable answer: partitions now, and a warning when lowering to (rcu, wcu) dilutes.

    ``rcu``/``wcu``: a proposed setting (default: the current one). ``peak_rcu``/``peak_wcu``:
    the highest setting the table ever had, when the caller knows it (DescribeTable does not).
    The kept partitions are the most any known setting needed (current, peak, size), because
    DynamoDB never merges partitions. No DynamoDB call.
    """
    throughput = description.get("ProvisionedThroughput") or {}
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    on_demand = billing == PAY_PER_REQUEST
    size = size_gb_of(description)
    current_rcu = 0 if on_demand else float(throughput.get("ReadCapacityUnits", 0) or 0)
    current_wcu = 0 if on_demand else float(throughput.get("WriteCapacityUnits", 0) or 0)
    current = plan(current_rcu, current_wcu, size)
    peak = plan(max(peak_rcu or 0, current_rcu), max(peak_wcu or 0, current_wcu), size)
    kept = max(current.partitions, peak.partitions)
    decreases_today = int(throughput.get("NumberOfDecreasesToday", 0) or 0)
    last_decrease = _as_datetime(throughput.get("LastDecreaseDateTime"))
    warnings: list[str] = []
    proposed: Plan | None = None
    per_r: float | None = None
    per_w: float | None = None
    if on_demand:
        warnings.append(
            "On demand: no provisioned throughput is divided; DynamoDB adds partitions as traffic and data grow."
        )
    else:
        want_r = current_rcu if rcu is None else float(rcu)
        want_w = current_wcu if wcu is None else float(wcu)
        proposed = plan(want_r, want_w, size)
        kept = max(kept, proposed.partitions)
        per_r, per_w = want_r / kept, want_w / kept
        if kept > proposed.partitions:
            warnings.append(
                f"Dilution: {want_r:g} RCU / {want_w:g} WCU need {proposed.partitions} partition(s), but the table "
                f"keeps at least {kept} from an earlier, higher setting (partitions are never merged): each gets "
                f"{per_r:.0f} RCU / {per_w:.0f} WCU instead of {proposed.rcu_per_partition:.0f} / "
                f"{proposed.wcu_per_partition:.0f}, and a busy partition key is throttled sooner."
            )
        if (decreases_today or last_decrease) and peak_rcu is None and peak_wcu is None:
            warnings.append(
                "This table has been turned down before "
                f"({decreases_today} decrease(s) today"
                + (f", last on {_when(last_decrease)}" if last_decrease else "")
                + "): it may still have the partitions of an earlier peak that DescribeTable does not show, "
                "so each partition may get less than shown. To check, give the peak to capacity_plan "
                "(--peak-rcu/--peak-wcu)."
            )
    return Assessment(
        table=str(description.get("TableName", "")),
        on_demand=on_demand,
        size_gb=size,
        items=int(description.get("ItemCount", 0) or 0),
        current=current,
        kept_partitions=kept,
        proposed=proposed,
        rcu_per_partition=per_r,
        wcu_per_partition=per_w,
        last_increase=_as_datetime(throughput.get("LastIncreaseDateTime")),
        last_decrease=last_decrease,
        decreases_today=decreases_today,
        warnings=warnings,
    )


def _as_datetime(value: Any) -> datetime | None:
    """A DescribeTable time, or None for "never" (DynamoDB Local answers 1970-01-01 for never)."""
    return value if isinstance(value, datetime) and value.timestamp() > 0 else None


def _when(value: datetime) -> str:
    return value.isoformat(timespec="seconds")
