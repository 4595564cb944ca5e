"""Run every ``bench/*.py`` in turn: ``make bench`` (default sizes) and ``make bench-quick`` (``--quick``).

    python -m devtools.bench.runner [--quick] [--budget SECONDS] [--shared-local]

The scripts are the glob ``bench/*.py`` at the moment of the run, sorted: a new script is run
without anyone adding it to a list. Each runs with a fresh DynamoDB Local on a free port
(``python -m devtools.services run``, as a developer runs one by hand), unless ``--shared-local``
starts one for all of them (each bench writes under its own table prefix and drops it).

A bench counts as run only when it exits 0 **and** the last line of its stdout is its JSON
summary (``"benchmark"`` naming the script, ``"ok": true``): a script that exits 0 without
measuring anything is red too. DynamoDB's read timeout is 30 s (``DYNAMODB_READ_TIMEOUT`` unless
set): a lost answer's retry is charged twice, which no floor names. The runner stops at the first
red bench, then prints every script's wall time (``not run`` for the ones after it) and the total;
exit 1 when a bench was red, when the total went over ``--budget``, or when the scripts run are not
the glob's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from devtools import services

ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = ROOT / "bench"
# DynamoDB Local on a busy 2-core machine can take longer than the application's 2 s to answer a
# batch; botocore then sends the write again, which Local charges again and no floor names.
READ_TIMEOUT = "30"


@dataclass
class Outcome:
    script: str
    status: str = "not run"  # ok, FAILED (…), not run
    seconds: float | None = None


def scripts() -> list[Path]:
    """Every ``bench/*.py``, sorted: the runner's whole list."""
    return sorted(BENCH_DIR.glob("*.py"))


def summary_of(last_line: str, script: Path) -> str | None:
    """None when ``last_line`` is the script's own JSON summary with ``ok``; otherwise what is wrong."""
    try:
        summary = json.loads(last_line)
    except ValueError:
        return "its last line is not its JSON summary"
    if not isinstance(summary, dict) or summary.get("benchmark") != script.stem:
        return f"its JSON summary names {summary.get('benchmark') if isinstance(summary, dict) else None!r}"
    if summary.get("ok") is not True:
        return f"its JSON says ok={summary.get('ok')!r}: {summary.get('error', '')}"
    return None


def run_one(script: Path, *, quick: bool, endpoint: str | None) -> Outcome:
    """Run one script (its output passed through), timed; its outcome."""
    outcome = Outcome(str(script.relative_to(ROOT)))
    python = sys.executable
    command = [python, str(script), *(["--quick"] if quick else [])]
    env = dict(os.environ)
    env.pop("DYNAMODB_ENDPOINT_URL", None)
    env.setdefault("DYNAMODB_READ_TIMEOUT", READ_TIMEOUT)
    if endpoint is None:
        command = [python, "-m", "devtools.services", "run", "--", *command]  # a fresh DynamoDB Local
    else:
        env["DYNAMODB_ENDPOINT_URL"] = endpoint
    print(f"== {outcome.script}{' --quick' if quick else ''}", flush=True)
    began = time.perf_counter()
    last = ""
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, bufsize=1) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if line.strip():
                last = line.strip()
        code = process.wait()
    outcome.seconds = time.perf_counter() - began
    wrong = f"exit status {code}" if code != 0 else summary_of(last, script)
    outcome.status = "ok" if wrong is None else f"FAILED ({wrong})"
    print(f"-- {outcome.script}: {outcome.status}, {outcome.seconds:.1f} s", flush=True)
    return outcome


@contextlib.contextmanager
def shared_local(shared: bool) -> Iterator[str | None]:
    if not shared:
        yield None
        return
    with services.running("dynamodb") as started:
        yield started["dynamodb"].url


def report(outcomes: Sequence[Outcome], total: float, budget: float | None) -> None:
    width = max(len(o.script) for o in outcomes)
    print(f"\n{'bench'.ljust(width)}  {'seconds':>8}  result")
    for o in outcomes:
        seconds = "" if o.seconds is None else f"{o.seconds:.1f}"
        print(f"{o.script.ljust(width)}  {seconds:>8}  {o.status}")
    limit = f" (budget {budget:.0f} s)" if budget is not None else ""
    ran = sum(1 for o in outcomes if o.seconds is not None)
    print(f"{'total'.ljust(width)}  {total:>8.1f}  {ran} of {len(outcomes)} bench/*.py run{limit}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.bench.runner", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="run each bench with --quick (small sizes)")
    parser.add_argument("--budget", type=float, help="fail when the benches together take longer (seconds)")
    parser.add_argument("--shared-local", action="store_true", help="one DynamoDB Local for every bench")
    parser.add_argument("--list", action="store_true", help="print the scripts that would run, and stop")
    args = parser.parse_args(argv)
    found = scripts()
    if args.list:
        print("\n".join(str(path.relative_to(ROOT)) for path in found))
        return 0
    outcomes = [Outcome(str(path.relative_to(ROOT))) for path in found]
    began = time.perf_counter()
    red = False
    with shared_local(args.shared_local) as endpoint:
        for index, path in enumerate(found):
            outcomes[index] = run_one(path, quick=args.quick, endpoint=endpoint)
            if outcomes[index].status != "ok":
                red = True
                break
            if args.budget is not None and time.perf_counter() - began > args.budget and index + 1 < len(found):
                outcomes[index].status = f"ok, but the budget of {args.budget:.0f} s is spent: the rest not run"
                red = True
                break
    total = time.perf_counter() - began
    report(outcomes, total, args.budget)
    problems = [f"{o.script} {o.status}" for o in outcomes if o.status.startswith("FAILED")]
    problems += [f"{o.script} not run" for o in outcomes if o.seconds is None]
    if not red and [o.script for o in outcomes if o.status == "ok"] != [str(p.relative_to(ROOT)) for p in scripts()]:
        problems.append("the scripts run are not every bench/*.py (one was added or removed during the run?)")
    if args.budget is not None and total > args.budget:
        problems.append(f"the benches took {total:.0f} s, over the budget of {args.budget:.0f} s")
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
