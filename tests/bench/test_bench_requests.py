"""Requests judged from what was asked (issue 19): bench/archive.py's Scans and the other operations it may make.

The archive bench judged RCU and WCU only, so an extra Scan page of a few bytes, or a GetItem, passed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from devtools.bench import CheckFailed
from devtools.bench.floors import Cost, Verdict

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}_requests", BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


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
    assert archive.unexpected({"Scan": 4, "DescribeTable": 1}, expected) == []
    assert archive.unexpected({"Scan": 4, "DescribeTable": 1, "GetItem": 1}, expected) == ["GetItem ×1 (0…0)"]
    assert archive.unexpected({"Scan": 4}, expected) == ["DescribeTable ×0 (1…1)"]
    assert archive.unexpected({"Scan": 4, "DescribeTable": 3}, {"DescribeTable": (2, 60)}) == []

    class Meter:
        rcu, wcu = 73.5, 0.0
        by_operation = {"Scan": 4, "DescribeTable": 1, "Query": 1}

    with pytest.raises(CheckFailed, match="Query ×1"):
        archive.scanned(Meter(), expected)
    Meter.by_operation = {"Scan": 4, "DescribeTable": 1}
    assert archive.scanned(Meter(), expected) == Cost(73.5, 0.0, 4)
