"""Issue numbers under contention: throughput, lost races and capacity of ``issue_create``.

For each level of concurrent writers (threads) a fresh project receives ``--issues`` issues in
total, spread over the writers. Each issue takes the next number with the sort-key sequence
(consistent Query of the largest SK, Limit 1, then a PutItem conditioned on
``attribute_not_exists``); a writer that loses the race re-reads and tries again.

Printed on stdout: a table (one row per level) and, last, exactly one line of JSON with every
figure. Progress goes to stderr, only when stderr is a terminal. Exit status: 0 when every
level handed out exactly 1..N, 1 when not (or when a writer failed), 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/issue_numbers.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/issue_numbers.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.core.errors import SequenceContention  # noqa: E402
from ddbmodels.issues import (  # noqa: E402
    IssueItem,
    issue_create,
    issue_numbers,
    project_create,
)
from ddbmodels.patterns.sequences import BACKOFF  # noqa: E402
from devtools import bench  # noqa: E402

TENANT = "bench"
# The floor per number: one strongly consistent read of one item ≤ 4 KB, one write of an item ≤ 1 KB.
MIN_RCU_PER_ISSUE = 1.0
MIN_WCU_PER_ISSUE = 1.0
# DynamoDB charges a failed conditional write (≥ 1 WCU) but its error carries no ConsumedCapacity.
WCU_PER_FAILED_WRITE = 1.0
# A writer whose issue_create gives up (SequenceContention) tries the same issue again, this often at most:
# give-ups are measured (an overload symptom); only a writer that cannot get any number fails the run.
GIVE_UP_LIMIT = 10


class VerificationError(Exception):
    """A level did not hand out exactly the numbers 1..N."""


@dataclass
class WriterResult:
    meter: capacity.CapacityMeter
    numbers: list[int] = field(default_factory=list)
    attempts: int = 0  # every issue_create attempt, lost or won (given-up calls included)
    max_attempts: int = 0  # the most attempts one issue needed
    gave_up: int = 0  # SequenceContention: a call lost every race; the writer tried that issue again
    latencies_s: list[float] = field(default_factory=list)
    sample: IssueItem | None = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/issue_numbers.py",
        description="Throughput, lost races and capacity of issue numbering with concurrent writers.",
    )
    parser.add_argument(
        "--writers",
        type=bench.int_list("writer counts"),
        default=[1, 4, 16],
        metavar="N,N,...",
        help="concurrent writers (threads) per level, each level in its own project (default: 1,4,16)",
    )
    parser.add_argument(
        "--issues",
        type=bench.positive_int,
        default=400,
        help="issues per level, spread over its writers (default: 400)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=50,
        help="issues created by one writer in a project of their own before the first level, not measured "
        "(DynamoDB Local's JVM is slow until warm; default: 50)",
    )
    bench.add_allow_aws(parser)
    return parser.parse_args(argv)


def writer(
    index: int, count: int, project_key: str, start: threading.Barrier, stop: threading.Event, bar: tqdm
) -> WriterResult:
    """One thread: ``count`` issues, one after the other, measured by this thread's own meter."""
    with capacity.measure() as meter:  # context variables: this thread's calls only
        result = WriterResult(meter=meter)
        start.wait()
        for i in range(count):
            if stop.is_set():
                break
            issue_attempts = 0
            begun = time.perf_counter()
            while True:
                try:
                    claimed = issue_create(
                        tenant=TENANT, project_key=project_key, title=f"Bench issue {index}.{i}", reporter="bench"
                    )
                except SequenceContention as error:
                    result.gave_up += 1
                    issue_attempts += int(error.context.get("attempts", 0))  # type: ignore[call-overload]
                    if stop.is_set() or issue_attempts >= GIVE_UP_LIMIT * BACKOFF.attempts:
                        raise
                    continue
                issue_attempts += claimed.attempts
                break
            result.latencies_s.append(time.perf_counter() - begun)
            result.numbers.append(claimed.number)
            result.attempts += issue_attempts
            result.max_attempts = max(result.max_attempts, issue_attempts)
            if result.sample is None:
                result.sample = claimed.item
            bar.update(1)
    return result


def run_level(level: int, writers: int, issues: int) -> dict[str, Any]:
    """A fresh project, ``issues`` issues from ``writers`` threads; figures, verified numbers."""
    project_key = f"B{level}W{writers}"
    project_create(tenant=TENANT, key=project_key, name=f"Bench {writers} writers", created_by="bench")
    shares = [issues // writers + (1 if i < issues % writers else 0) for i in range(writers)]
    start = threading.Barrier(writers + 1)
    stop = threading.Event()
    bar = bench.progress_bar(total=issues, desc=f"{writers:>3} writers", unit="issue", leave=False)
    with bar, ThreadPoolExecutor(max_workers=writers, thread_name_prefix="writer") as pool:
        futures = [pool.submit(writer, i, share, project_key, start, stop, bar) for i, share in enumerate(shares)]
        try:
            start.wait()
            began = time.perf_counter()
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            seconds = time.perf_counter() - began
            failed = [f for f in done if f.exception() is not None]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
        except BaseException:
            stop.set()
            start.abort()  # writers still waiting at the start line give up at once
            raise
    results = [f.result() for f in futures]

    meter = capacity.CapacityMeter()
    for result in results:
        meter.add(result.meter)
    attempts = sum(r.attempts for r in results)
    conflicts = attempts - issues  # every attempt but the winning one lost a race
    gave_up = sum(r.gave_up for r in results)
    latencies = sorted(s for r in results for s in r.latencies_s)
    sample = next((r.sample for r in results if r.sample is not None), None)

    expected = list(range(1, issues + 1))
    claimed = sorted(n for r in results for n in r.numbers)
    stored = issue_numbers(tenant=TENANT, project_key=project_key)
    if claimed != expected or stored != expected:
        raise VerificationError(
            f"{writers} writers, project {project_key}: expected numbers 1..{issues}; "
            f"writers claimed {describe_numbers(claimed, issues)}, the table holds {describe_numbers(stored, issues)}"
        )
    if meter.conditional_failures != conflicts:
        print(
            f"warning: {writers} writers: {conflicts} lost races but the meters saw "
            f"{meter.conditional_failures} failed conditional writes",
            file=sys.stderr,
        )

    return {
        "writers": writers,
        "issues": issues,
        "project": project_key,
        "seconds": round(seconds, 3),
        "issues_per_s": round(issues / seconds, 1),
        "conflicts_per_issue": round(conflicts / issues, 4),
        "retries_per_issue": round((attempts - issues) / issues, 4),
        "rcu_per_issue": round(meter.rcu / issues, 4),
        "wcu_per_issue": round(meter.wcu / issues, 4),
        "failed_writes_per_issue": round(meter.conditional_failures / issues, 4),
        "charged_wcu_per_issue": round((meter.wcu + meter.conditional_failures * WCU_PER_FAILED_WRITE) / issues, 4),
        "min_rcu_per_issue": MIN_RCU_PER_ISSUE,
        "min_wcu_per_issue": MIN_WCU_PER_ISSUE,
        "requests_per_issue": round(meter.requests / issues, 4),
        "max_attempts": max(r.max_attempts for r in results),
        "gave_up": gave_up,
        "throttles": meter.throttles,
        "latency_ms": {
            "p50": round(1000 * statistics.median(latencies), 2),
            "p99": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 2),
            "max": round(1000 * latencies[-1], 2),
        },
        "item_bytes": bench.item_size(sample.serialize()) if sample is not None else None,
        "totals": {"attempts": attempts, "conflicts": conflicts, **meter.as_dict()},
    }


def warm_up(issues: int) -> None:
    """Untimed issues in a project of their own: connections opened, DynamoDB Local's JIT warm."""
    project_create(tenant=TENANT, key="WARMUP", name="Bench warm-up", created_by="bench")
    for i in range(issues):
        issue_create(tenant=TENANT, project_key="WARMUP", title=f"Warm-up {i}", reporter="bench")


def describe_numbers(numbers: list[int], issues: int) -> str:
    """A short account of what is wrong with a list of numbers that should be 1..issues."""
    if numbers == list(range(1, issues + 1)):
        return f"exactly 1..{issues}"
    seen = set(numbers)
    missing = sorted(set(range(1, issues + 1)) - seen)
    extra = sorted(seen - set(range(1, issues + 1)))
    duplicates = len(numbers) - len(seen)
    parts = [f"{len(numbers)} numbers"]
    if missing:
        parts.append(f"missing {missing[:10]}{'…' if len(missing) > 10 else ''}")
    if extra:
        parts.append(f"unexpected {extra[:10]}{'…' if len(extra) > 10 else ''}")
    if duplicates:
        parts.append(f"{duplicates} duplicates")
    return ", ".join(parts)


COLUMNS: list[bench.Column] = [
    ("writers", "writers", "d"),
    ("issues", "issues", "d"),
    ("seconds", "seconds", ".2f"),
    ("issues/s", "issues_per_s", ".1f"),
    ("conflicts/issue", "conflicts_per_issue", ".4f"),
    ("retries/issue", "retries_per_issue", ".4f"),
    ("RCU/issue", "rcu_per_issue", ".4f"),
    ("min RCU", "min_rcu_per_issue", ".0f"),
    ("WCU/issue", "wcu_per_issue", ".4f"),
    ("min WCU", "min_wcu_per_issue", ".0f"),
    ("failed writes/issue", "failed_writes_per_issue", ".4f"),
    ("charged WCU/issue", "charged_wcu_per_issue", ".4f"),
    ("max attempts", "max_attempts", "d"),
    ("gave up", "gave_up", "d"),
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    target = bench.connect("bench/issue_numbers.py", allow_aws=args.allow_aws)
    if target is None:
        return 2
    # One HTTP connection per writer, so the pool neither blocks nor discards connections (models
    # open their connections on first use, after this).
    for model in connection.registered().values():
        model.Meta.max_pool_connections = max(10, *args.writers)
    prefix = target.prefix
    print(f"issue_numbers: {target.endpoint}, tables {prefix}*, {args.issues} issues per level, writers {args.writers}")

    rows: list[dict[str, Any]] = []
    error: str | None = None
    try:
        tables.create_all()
        if args.warmup > 0:
            warm_up(args.warmup)
        for level, writers in enumerate(args.writers, start=1):
            rows.append(run_level(level, writers, args.issues))
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(VerificationError, SequenceContention))
    finally:
        try:
            deleted = tables.delete_all()
            print(f"deleted {len(deleted)} table(s): {', '.join(deleted)}", file=sys.stderr)
        except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
            print(f"warning: could not delete the tables {prefix}*: {failure}", file=sys.stderr)

    if rows:
        print(bench.table(COLUMNS, rows))
    figures = {
        "issues_per_level": args.issues,
        "warmup_issues": max(args.warmup, 0),
        "min_rcu_per_issue": MIN_RCU_PER_ISSUE,
        "min_wcu_per_issue": MIN_WCU_PER_ISSUE,
        "results": rows,
    }
    return bench.finish("issue_numbers", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
