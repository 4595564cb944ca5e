"""The bench runner (``make bench``, ``make bench-quick``): every bench/*.py; only a bench's own ok summary is ok."""

from __future__ import annotations

import json
from pathlib import Path

from devtools import bench
from devtools.bench import runner
from devtools.bench.floors import Cost, Verdict

ROOT = Path(__file__).resolve().parents[2]


def test_the_runner_runs_the_glob_so_a_new_bench_is_included_without_a_list() -> None:
    assert runner.scripts() == sorted((ROOT / "bench").glob("*.py"))
    assert {path.stem for path in runner.scripts()} >= {"orders", "patterns", "aws_sample_distinct_pks", "load"}


def test_a_bench_is_ok_only_when_its_last_line_is_its_own_summary_saying_ok() -> None:
    script = ROOT / "bench" / "orders.py"
    assert runner.summary_of(json.dumps({"benchmark": "orders", "ok": True}), script) is None
    # Exit status 0 is not enough: a script that printed something else, or another bench's summary, is red.
    assert runner.summary_of("deleted 3 table(s)", script) == "its last line is not its JSON summary"
    assert "names 'patterns'" in str(runner.summary_of(json.dumps({"benchmark": "patterns", "ok": True}), script))
    failed = runner.summary_of(json.dumps({"benchmark": "orders", "ok": False, "error": "NOT EXPLAINED"}), script)
    assert failed is not None
    assert "NOT EXPLAINED" in failed


def test_every_bench_accepts_quick() -> None:
    """Each script's parser has --quick (bench.parser or its own), or bench-quick would stop at its usage error."""
    for path in runner.scripts():
        assert "--quick" in path.read_text() or "bench.parser(" in path.read_text(), path.name


def test_a_run_that_judged_no_figure_is_an_error_not_a_pass() -> None:
    """Issue 19: a bench that recorded no verdict proved nothing; its run is red, not ok by default."""
    assert bench.verdicts_error([]) == "no figure was judged: the bench recorded no verdict against a floor"
    at_floor = Verdict("read", Cost(1, 0, 1), Cost(1, 0, 1))
    assert bench.verdicts_error([at_floor]) is None
    over = Verdict("read twice", Cost(2, 0, 2), Cost(1, 0, 1))
    assert bench.verdicts_error([at_floor, over]) == "1 figure(s) below their floor or not explained: read twice"
