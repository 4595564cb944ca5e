"""bench/issue_lists.py's own logic, without DynamoDB: the shape it loads, the old page's reads, the verdict."""

from __future__ import annotations

import importlib.util
import random
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

WHEN = datetime(2024, 1, 1, tzinfo=UTC)
SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "issue_lists.py"


@pytest.fixture(scope="module")
def il() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_issue_lists", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    sys.path.insert(0, str(SCRIPT.parent))  # as when run as a script: its parts are beside it
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPT.parent))  # bench/'s scripts are not modules of the other tests
    return module


def cell(rcu: float, *, requests: float = 1, returned: int = 26, bound: float = 1.0, floor: str = "floor") -> Any:
    return {
        "m_rcu": rcu,
        "m_req": f"{requests:.2f}",
        "returned": returned,
        "bytes": 1000 * rcu,
        "bound_rcu": bound,
        "verdict": floor,
    }


def test_a_project_has_its_statuses_in_their_shares_and_labels_on_some_issues(il: ModuleType) -> None:
    specs = il.project_specs(random.Random(1), "WEB", 1000, 0, il.RARE_TITLES)
    statuses = [s.status for s in specs]
    assert [statuses.count(name) for name in ("open", "in_progress", "resolved", "closed")] == [12, 20, 30, 938]
    assert 0 < sum(1 for s in specs if "bug" in s.labels) < 200  # a label on some issues, each its own key
    assert [s.number for s in specs] == list(range(1, 1001))
    assert len({s.updated for s in specs}) == 1000  # the by-update order has no ties


def test_the_old_page_reads_newest_first_in_pages_of_26_until_26_are_open(il: ModuleType) -> None:
    open_numbers = set(range(1, 27))  # the 26 oldest of 100: the whole collection is read
    specs = [
        il.Spec("WEB", n, "open" if n in open_numbers else "closed", None, frozenset(), "t", WHEN, WHEN)
        for n in range(1, 101)
    ]
    team = il.Team(size=100, slug="t", specs={"WEB": specs}, sizes=dict.fromkeys(range(1, 101), 1000))
    assert il.old_list_reads(team) == (100, 100_000, 0.5 * (7 + 7 + 7 + 6), 4)  # 26 KB ×3 (7 × 4 KB) + 22 KB
    newest = {n: ("open" if n > 74 else "closed") for n in range(1, 101)}
    team.specs["WEB"] = [il.Spec("WEB", n, newest[n], None, frozenset(), "t", WHEN, WHEN) for n in range(1, 101)]
    assert il.old_list_reads(team) == (26, 26_000, 3.5, 1)


def test_equal_cost_at_every_size_is_flat(il: ModuleType) -> None:
    assert il.verdict("open, by number", [cell(0.5), cell(0.5), cell(0.5)], 1.0) == "flat"


def test_a_page_that_fills_as_the_project_grows_is_flat_and_says_so(il: ModuleType) -> None:
    cells = [cell(0.5, returned=12), cell(1.0), cell(1.0)]
    assert il.verdict("team: open", cells, 2.0) == "flat (page filling: 12 → 26 entries)"
    assert il.verdict("label", [cell(0.0, returned=0), cell(1.0)], None) == "flat (page filling: 0 → 26 entries)"


def test_more_rcu_for_the_same_entries_is_flat_only_when_a_few_more_bytes_crossed_a_4_kb_step(il: ModuleType) -> None:
    step = [{**cell(0.5), "bytes": 4050}, {**cell(1.0), "bytes": 4150}]
    assert il.verdict("closed", step, 2.0) == "flat (4 KB step: 4,050 → 4,150 B)"
    grown = [{**cell(0.5), "bytes": 3000}, {**cell(1.0), "bytes": 4150}]
    assert il.verdict("closed", grown, 2.0) == "NOT FLAT"


def test_more_requests_more_than_a_page_or_an_unexplained_figure_is_not_flat(il: ModuleType) -> None:
    assert il.verdict("open", [cell(0.5), cell(0.5, requests=2)], 1.0) == "NOT FLAT: requests"
    two = cell(0.5, requests=2)  # every list is one request (search is the engine's: bench/search.py)
    assert il.verdict("label bug: open, team", [two, two], 1.0) == "NOT FLAT: requests"
    assert il.verdict("open", [cell(0.5, returned=3), cell(1.5)], 3.0) == "NOT FLAT: over a page"
    assert il.verdict("open", [cell(0.5), cell(0.5, floor="NOT EXPLAINED")], 1.0) == "NOT AT FLOOR"


def test_the_old_page_is_reported_as_before_never_judged_flat(il: ModuleType) -> None:
    assert il.verdict(il.OLD_LIST, [cell(38.5, requests=39), cell(90, requests=90)], 2.34) == "before (grows)"
    assert il.verdict(il.OLD_LIST, [cell(77, requests=77), cell(77, requests=77)], 1.0) == "before"
