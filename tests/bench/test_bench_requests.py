"""Requests judged from what was asked (issue 19): bench/archive.py's Scans and the other operations it may make.

The archive bench judged RCU and WCU only, so an extra Scan page of a few bytes, or a GetItem, passed.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from devtools.bench import CheckFailed, unexpected_operations
from devtools.bench.floors import Cost, Verdict
from tests.bench.scripts import BENCH, load_script


def load(name: str) -> ModuleType:
    return load_script(BENCH / f"{name}.py", f"bench_{name}_requests")


@pytest.fixture(scope="module")
def archive() -> ModuleType:
    return load("archive")


def items(archive: ModuleType, count: int, item_bytes: int) -> list[dict[str, object]]:
    return archive.build_items(count, item_bytes)  # type: ignore[no-any-return]


def test_a_scan_is_allowed_one_page_a_segment_and_one_a_started_mb_and_not_one_request_more(
    archive: ModuleType,
) -> None:
    sizes = archive.Sizes(items(archive, 2000, 300), 600_080)  # 0.6 MB: one page a segment
    assert sizes.pages(4) == 4
    floor, _, pages = sizes.scan_floor(4)
    assert floor.requests == 4
    rcu = floor.rcu + 0.5  # some pages rounded up: within the pages' allowance
    assert Verdict("export", Cost(rcu, 0, 4), floor, extras=(pages,)).ok
    # one Scan more (a page of a few bytes: 0.5 RCU) is not explained: there is no fifth page in 0.6 MB
    assert Verdict("export", Cost(rcu + 0.5, 0, 5), floor, extras=(pages,)).status == "NOT EXPLAINED"
    big = archive.Sizes(items(archive, 4000, 300), 1_200_000)  # 1.2 MB: one more page at most
    floor, _, pages = big.scan_floor(1)
    assert (floor.requests, big.pages(1)) == (1, 2)
    assert Verdict("export", Cost(floor.rcu + 0.5, 0, 2), floor, extras=(pages,)).ok
    assert not Verdict("export", Cost(floor.rcu + 1, 0, 3), floor, extras=(pages,)).ok


def test_any_operation_but_the_scans_and_the_expected_control_calls_fails_the_run(archive: ModuleType) -> None:
    expected = {"DescribeTable": (1, 1)}

    def unexpected(seen: dict[str, int], expected: dict[str, tuple[int, int]]) -> list[str]:
        return unexpected_operations(seen, ["Scan"], expected)

    assert unexpected({"Scan": 4, "DescribeTable": 1}, expected) == []
    assert unexpected({"Scan": 4, "DescribeTable": 1, "GetItem": 1}, expected) == ["GetItem ×1 (0…0)"]
    assert unexpected({"Scan": 4}, expected) == ["DescribeTable ×0 (1…1)"]
    assert unexpected({"Scan": 4, "DescribeTable": 3}, {"DescribeTable": (2, 60)}) == []

    class Meter:
        rcu, wcu = 73.5, 0.0
        by_operation = {"Scan": 4, "DescribeTable": 1, "Query": 1}

    with pytest.raises(CheckFailed, match="Query ×1"):
        archive.scanned(Meter(), expected)
    Meter.by_operation = {"Scan": 4, "DescribeTable": 1}
    assert archive.scanned(Meter(), expected) == Cost(73.5, 0.0, 4)


@pytest.fixture(scope="module")
def dk() -> ModuleType:
    return load("distinct_keys")


def floors_of(dk: ModuleType, partitions: int, each: int, local_table: int, first_item: int) -> object:
    return dk.Floors(
        table=local_table,
        local_table=local_table,
        index=0,
        local_index=0,
        first_item=first_item,
        partitions=partitions,
        items_each=each,
    )


def test_autos_probe_is_allowed_from_the_segment_asked_and_the_item_sizes_not_from_its_report(dk: ModuleType) -> None:
    # 60 collections × 10 items of ~1 KB (Local: 612,600 B): a scan 74.5 RCU, an average item 0.5 RCU,
    # so the probe of 1 in 20 segments may read ceil(74.5 / (20 × 0.5)) = 8 collections' first items.
    floors = floors_of(dk, 60, 10, 612_600, 1_038)
    cost, ended = dk.probe_floor(3, 20, floors)  # 3 collections in segment 0: all read, then an empty Scan
    assert ended
    assert cost == Cost(3 * 0.5 + 0.5, 0, 4)
    cost, ended = dk.probe_floor(30, 20, floors)  # 30 in it: stopped after 8, no empty Scan
    assert not ended
    assert cost == Cost(8 * 0.5, 0, 8)
    # the allowance is exact: one read more than the probe's (a collection read twice) is not explained
    floor = Cost(29.5, 0, 61)  # the skip-scan auto chose (Local's charges)
    extras = (dk.bench.Difference("probe", Cost(4.0, 0, 8)),)
    assert Verdict("auto", Cost(33.5, 0, 69), floor, extras=extras).ok
    assert Verdict("auto", Cost(34.0, 0, 70), floor, extras=extras).status == "NOT EXPLAINED"


def test_a_listing_that_makes_any_other_request_than_its_scans_and_one_describe_table_fails(dk: ModuleType) -> None:
    assert unexpected_operations({"Scan": 61, "DescribeTable": 1}, ["Scan", "Query"], dk.OTHERS) == []
    assert unexpected_operations({"Query": 1, "DescribeTable": 1, "GetItem": 1}, ["Scan", "Query"], dk.OTHERS) == [
        "GetItem ×1 (0…0)"
    ]
