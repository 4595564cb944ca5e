"""``manage.py capacity_plan``: partitions for R/W/G, and a real table's figures with the dilution warning."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from ddbmodels.core import connection
from tests.tracker.partition_helpers import provisioned_table

pytestmark = pytest.mark.ddblocal


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("capacity_plan", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def provisioned() -> Iterator[str]:
    """A provisioned table made for a 5,000 RCU / 2,000 WCU peak (four partitions), under the app's prefix."""
    with provisioned_table(5000, 2000) as name:
        yield name


@pytest.mark.parametrize(
    ("rcu", "wcu", "size_gb", "first_lines"),
    [
        ("1000", "500", "0", ["  partitions: 1 (throughput needs 1, size needs 0; set by throughput)"]),
        ("1000", "1000", "0", ["  partitions: 2 (throughput needs 2, size needs 0; set by throughput)"]),
        ("5000", "2000", "12", ["  partitions: 4 (throughput needs 4, size needs 2; set by throughput)"]),
        ("100", "100", "95", ["  partitions: 10 (throughput needs 1, size needs 10; set by size)"]),
    ],
)
def test_the_plan_prints_the_partitions_and_what_each_gets(
    rcu: str, wcu: str, size_gb: str, first_lines: list[str]
) -> None:
    lines = run("--rcu", rcu, "--wcu", wcu, "--size-gb", size_gb).splitlines()
    assert lines[1:2] == first_lines
    assert len(lines) == 4


def test_per_partition_throughput_and_burst_are_printed() -> None:
    assert run("--rcu", "5000", "--wcu", "2000", "--size-gb", "12").splitlines() == [
        "Plan for 5,000 RCU, 2,000 WCU, 12 GB:",
        "  partitions: 4 (throughput needs 4, size needs 2; set by throughput)",
        "  per partition: 1,250 RCU, 500 WCU",
        "  burst: a partition keeps up to 300 s of unused capacity (375,000 RCU, 150,000 WCU) for short spikes"
        " — not to plan on",
    ]


def test_missing_figures_without_a_table_are_a_clear_error() -> None:
    with pytest.raises(CommandError, match="give --rcu, --wcu and --size-gb"):
        run("--rcu", "5000")


def test_negative_figures_are_a_clear_error() -> None:
    with pytest.raises(CommandError, match="RCU must be a number ≥ 0"):
        run("--rcu", "-1", "--wcu", "1", "--size-gb", "1")


def test_a_real_table_turned_down_warns_that_its_partitions_are_diluted(provisioned: str) -> None:
    prefix = connection.current().table_prefix
    out = run("--rcu", "1000", "--wcu", "500", "--table", provisioned.removeprefix(prefix)).splitlines()
    assert out[1] == "  partitions: 1 (throughput needs 1, size needs 0; set by throughput)"
    assert out[4].startswith(f"Table {provisioned} (DescribeTable, free): provisioned 5,000 RCU, 2,000 WCU, 0.000 GB")
    assert out[5] == "  partitions: 4 (throughput needs 4, size needs 0; set by throughput)"
    assert out[6] == "  per partition: 1,250 RCU, 500 WCU"
    assert "  with 1,000 RCU, 500 WCU on its at least 4 partition(s): 250 RCU, 125 WCU each" in out
    warnings = [line for line in out if line.startswith("warning: ")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: Dilution: 1000 RCU / 500 WCU need 1 partition(s), but the table keeps")


def test_a_real_table_without_figures_uses_its_own_and_does_not_warn(provisioned: str) -> None:
    out = run("--table", provisioned)
    assert out.splitlines()[0] == "Plan for 5,000 RCU, 2,000 WCU, 0 GB:"
    assert "warning:" not in out


def test_an_unknown_table_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="no table 'no-such-table'"):
        run("--table", "no-such-table")
