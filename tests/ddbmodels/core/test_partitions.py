"""The partition planner: partitions from throughput and size, and dilution after a peak."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from ddbmodels.core import partitions
from ddbmodels.core.errors import InvalidInput

GIB = 1024**3


@pytest.mark.parametrize(
    ("rcu", "wcu", "size_gb", "expected"),
    [
        (0, 0, 0, 1),  # an empty, idle table still has one partition
        (1, 1, 0, 1),
        (1000, 500, 0, 1),  # the article: 0.33 + 0.5 → 1
        (1000, 1000, 0, 2),  # the article: 0.33 + 1 → 2
        (5000, 2000, 0, 4),  # the article: 1.67 + 2 = 3.67 → 4
        (8000, 2000, 0, 5),  # 2.67 + 2 = 4.67 → 5 for a fresh table
        (3000, 0, 0, 1),  # exactly one partition's reads
        (3001, 0, 0, 2),
        (0, 1000, 0, 1),  # exactly one partition's writes
        (0, 1001, 0, 2),
        (1500, 500, 0, 1),  # 0.5 + 0.5 = 1 exactly
        (1500, 501, 0, 2),
        (30000, 10000, 0, 20),
        (5, 5, 10, 1),  # 10 GB fills one partition exactly
        (5, 5, 10.01, 2),
        (5, 5, 95, 10),  # size decides
        (1000, 1000, 25, 3),  # size (3) beats throughput (2)
        (40000, 0, 25, 14),  # throughput (13.3 → 14) beats size (3)
        (0, 0, 0.001, 1),
        (100, 100, 1000, 100),
    ],
)
def test_plan_counts_partitions_from_throughput_and_size(rcu: int, wcu: int, size_gb: float, expected: int) -> None:
    assert partitions.plan(rcu, wcu, size_gb).partitions == expected


def test_plan_splits_the_throughput_evenly() -> None:
    result = partitions.plan(5000, 2000, 0)
    assert (result.rcu_per_partition, result.wcu_per_partition) == (1250, 500)
    assert (result.by_throughput, result.by_size, result.limited_by) == (4, 0, "throughput")


def test_plan_names_size_as_the_limit_when_data_needs_more_partitions() -> None:
    result = partitions.plan(1000, 1000, 25)
    assert (result.by_throughput, result.by_size, result.partitions, result.limited_by) == (2, 3, 3, "size")
    assert result.rcu_per_partition == pytest.approx(333.333, abs=0.001)


def test_burst_is_300_seconds_of_a_partitions_share() -> None:
    result = partitions.plan(5000, 2000, 0)
    assert (result.burst_rcu, result.burst_wcu) == (1250 * 300, 500 * 300)


@pytest.mark.parametrize(("rcu", "wcu", "size_gb"), [(-1, 0, 0), (0, -5, 0), (0, 0, -0.1), (float("nan"), 0, 0)])
def test_plan_refuses_negative_or_missing_figures(rcu: float, wcu: float, size_gb: float) -> None:
    with pytest.raises(InvalidInput):
        partitions.plan(rcu, wcu, size_gb)


def description(
    rcu: int = 5, wcu: int = 5, size_bytes: int = 0, billing: str | None = None, **throughput: Any
) -> dict[str, Any]:
    table: dict[str, Any] = {
        "TableName": "tracker-issues",
        "ItemCount": 42,
        "TableSizeBytes": size_bytes,
        "ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu, **throughput},
    }
    if billing:
        table["BillingModeSummary"] = {"BillingMode": billing}
        table["ProvisionedThroughput"] = {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    return table


def test_assess_reads_the_current_setting_and_size() -> None:
    result = partitions.assess(description(5000, 2000, size_bytes=15 * GIB))
    assert (result.current.partitions, result.kept_partitions, result.size_gb, result.items) == (4, 4, 15.0, 42)
    assert (result.rcu_per_partition, result.wcu_per_partition) == (1250, 500)
    assert result.warnings == []


def test_a_decrease_below_what_the_partitions_were_made_for_is_diluted() -> None:
    result = partitions.assess(description(5000, 2000), rcu=1000, wcu=500)
    assert result.proposed is not None
    assert result.proposed.partitions == 1
    assert result.kept_partitions == 4
    assert (result.rcu_per_partition, result.wcu_per_partition) == (250, 125)
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(
        "Dilution: 1000 RCU / 500 WCU need 1 partition(s), but the table keeps at least 4"
    )
    assert "250 RCU / 125 WCU instead of 1000 / 500" in result.warnings[0]


def test_a_decrease_that_still_needs_the_same_partitions_is_not_diluted() -> None:
    result = partitions.assess(description(5000, 2000), rcu=4000, wcu=1800)
    assert (result.kept_partitions, result.warnings) == (4, [])
    assert (result.rcu_per_partition, result.wcu_per_partition) == (1000, 450)


def test_an_increase_grows_the_partitions_without_warning() -> None:
    result = partitions.assess(description(1000, 500), rcu=8000, wcu=2000)
    assert (result.kept_partitions, result.warnings) == (5, [])


def test_a_known_peak_keeps_its_partitions_after_the_table_was_turned_down() -> None:
    result = partitions.assess(description(100, 100), peak_rcu=30000, peak_wcu=10000)
    assert (result.current.partitions, result.kept_partitions) == (1, 20)
    assert (result.rcu_per_partition, result.wcu_per_partition) == (5, 5)
    assert len(result.warnings) == 1
    assert "keeps at least 20" in result.warnings[0]


def test_size_keeps_partitions_too() -> None:
    result = partitions.assess(description(3000, 1000, size_bytes=40 * GIB), rcu=300, wcu=100)
    assert result.proposed is not None
    assert result.proposed.partitions == 4  # size decides, no dilution by throughput
    assert (result.kept_partitions, result.warnings) == (4, [])


def test_past_decreases_without_a_known_peak_get_a_caution() -> None:
    last = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)
    result = partitions.assess(description(5, 5, NumberOfDecreasesToday=2, LastDecreaseDateTime=last))
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(
        "This table has been turned down before (2 decrease(s) today, last on 2026-11-23T09:30:00+00:00)"
    )
    assert (result.last_decrease, result.decreases_today) == (last, 2)


def test_on_demand_tables_have_no_throughput_to_divide() -> None:
    result = partitions.assess(description(billing="PAY_PER_REQUEST", size_bytes=25 * GIB), rcu=100, wcu=100)
    assert (result.on_demand, result.proposed) == (True, None)
    assert (result.current.partitions, result.rcu_per_partition) == (3, None)
    assert result.warnings[0].startswith("On demand:")


def test_the_epoch_means_never_as_dynamodb_local_answers_it() -> None:
    never = datetime(1970, 1, 1, tzinfo=UTC)
    result = partitions.assess(
        description(5, 5, NumberOfDecreasesToday=0, LastDecreaseDateTime=never, LastIncreaseDateTime=never)
    )
    assert (result.last_decrease, result.last_increase, result.warnings) == (None, None, [])
