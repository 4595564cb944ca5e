"""bench/search.py, small: at 200 and 1,000 issues every search finds its issues in ≤ 3 requests (the engine's one)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

import ddbmodels

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "search.py"


@pytest.fixture(scope="module")
def bench_search() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_search", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)  # Django is set up already (the test settings): it uses the test database
    return module


@pytest.mark.ddblocal
def test_a_comment_word_and_a_title_prefix_find_their_issue_in_at_most_three_requests(
    bench_search: ModuleType,
    ddblocal: ddbmodels.DynamoSettings,
    db: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DYNAMODB_ENDPOINT_URL", ddblocal.endpoint_url or "")
    monkeypatch.setenv("DYNAMODB_TABLE_PREFIX", ddblocal.table_prefix)
    try:
        status = bench_search.main(["--sizes", "200,1000", "--repeat", "2", "--writes", "5", "--workers", "4"])
    finally:  # the bench pointed the models at tables of its own (dropped when it ended)
        ddbmodels.configure(
            endpoint_url=ddblocal.endpoint_url, region=ddblocal.region, table_prefix=ddblocal.table_prefix
        )
    out = capsys.readouterr().out
    figures = json.loads(out.strip().splitlines()[-1])
    assert status == 0, out
    assert figures["ok"]
    for size in ("200", "1000"):
        rows = {row["search"]: row for row in figures["searches"][size]}
        for name in ("word only in a comment", "4-letter prefix of a title word"):
            assert rows[name]["verdict"] == "ok"
            assert rows[name]["requests"] <= 3
            assert rows[name]["found"] >= 1
    assert all(write["requests"] == 1.0 for write in figures["writes"])  # the task's one GetItem


def test_a_filtered_search_must_find_its_whole_first_page_not_an_empty_or_partial_one(bench_search: ModuleType) -> None:
    """Issue 19: "is:open label:bug + prefix" passed with ``set(got) <= matching``: an empty page (floor 0) passed."""
    matching = set(range(1, 41))  # 40 issues match: the first page shows 25 of them
    newest = sorted(matching, reverse=True)[:25]
    assert bench_search.one_page_of(newest, matching)
    assert not bench_search.one_page_of([], matching)  # nothing found
    assert not bench_search.one_page_of(newest[:24], matching)  # a partial page
    assert not bench_search.one_page_of([*newest[:24], 99], matching)  # one that does not match
    assert not bench_search.one_page_of([*newest[:24], newest[0]], matching)  # one issue twice
    assert bench_search.one_page_of([3, 1], {1, 3})  # fewer than a page match: all of them
    assert bench_search.one_page_of([], set())  # nothing matches: nothing shown
