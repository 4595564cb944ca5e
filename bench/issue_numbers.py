"""Issue numbers under contention: throughput, lost races and capacity of ``issue_create``.

For each level of concurrent writers (threads) a fresh project receives ``--issues`` issues in
total, spread over the writers. Each issue takes the next number with the sort-key sequence
(consistent Query of the largest SK, Limit 1, then a PutItem conditioned on
``attribute_not_exists``); a writer that loses the race re-reads and tries again.

DynamoDB's floor per issue is 1 RCU (one consistent read of an item ≤ 4 KB), 1 WCU (one item
≤ 1 KB) and 2 requests. Each lost race adds one more read (1 RCU) and one refused PutItem, which
DynamoDB charges 1 WCU but DynamoDB Local reports without capacity: Local's WCU is the floor's,
DynamoDB's would be 1 + lost races per issue ("charged WCU/issue"). Both are printed.

Printed on stdout: a table (one row per level), the notes on the floors and, last, exactly one
line of JSON with every figure. Exit status: 0 when every level handed out exactly 1..N and every
figure is its floor or explained, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/issue_numbers.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels.core import connection, tables
from ddbmodels.core.errors import SequenceContention
from ddbmodels.issues import issue_create, issue_numbers, project_create
from ddbmodels.patterns.sequences import BACKOFF
from devtools import bench

TENANT = "bench"
# A writer whose issue_create gives up (SequenceContention) tries the same issue again, this often at most:
# give-ups are measured (an overload symptom); only a writer that cannot get any number fails the run.
GIVE_UP_LIMIT = 10
LOST_RACE = (
    "each lost race: one more consistent Query (1 RCU) and a refused PutItem (DynamoDB charges it 1 WCU, "
    "DynamoDB Local reports none: see 'DynamoDB WCU/issue')"
)


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("issue_numbers", __doc__)
    bench.levels(parser, "--writers", [1, 4, 16], "concurrent writers (threads) per level, each in its own project")
    bench.count(parser, "--issues", 400, "issues per level, spread over its writers")
    bench.count(parser, "--warmup", 50, "untimed issues first, in a project of their own (DynamoDB Local's JIT)")
    return parser.parse_args(argv)


def run_level(run: bench.Run, level: int, writers: int, issues: int) -> dict[str, Any]:
    """A fresh project, ``issues`` issues from ``writers`` threads; its figures, its numbers verified."""
    project_key = f"B{level}W{writers}"
    project_create(tenant=TENANT, key=project_key, name=f"Bench {writers} writers", created_by="bench")

    def claim(writer: int, i: int) -> Any:
        return issue_create(tenant=TENANT, project_key=project_key, title=f"Bench issue {writer}.{i}", reporter="bench")

    got = bench.contend(writers, issues, claim, give_up_after=GIVE_UP_LIMIT * BACKOFF.attempts, desc=f"{writers}w")
    expected = list(range(1, issues + 1))
    stored = issue_numbers(tenant=TENANT, project_key=project_key)
    bench.check(
        got.numbers == expected and stored == expected,
        f"{writers} writers, project {project_key}: expected 1..{issues}; writers claimed "
        f"{describe_numbers(got.numbers, issues)}, the table holds {describe_numbers(stored, issues)}",
    )
    meter, lost = got.meter, got.lost
    bench.check(meter.conditional_failures == lost, f"{lost} lost races, {meter.conditional_failures} refused writes")
    verdict = run.judge(
        f"{writers} writers",
        bench.Cost.of(meter),
        bench.Cost(1, 1, 2).times(issues),
        extras=[bench.Difference(LOST_RACE, bench.Cost(1, 0, 2).times(lost))],
        per=issues,
    )
    return {
        "writers": writers,
        "project": project_key,
        "dynamodb_wcu_per_issue": round((meter.wcu + meter.conditional_failures) / issues, 4),
        "item_bytes": bench.item_size(got.sample.serialize()) if got.sample is not None else None,
        **got.figures(),
        **verdict.cells(),
    }


def describe_numbers(numbers: list[int], issues: int) -> str:
    """A short account of what is wrong with a list of numbers that should be 1..issues."""
    if numbers == list(range(1, issues + 1)):
        return f"exactly 1..{issues}"
    seen = set(numbers)
    missing = sorted(set(range(1, issues + 1)) - seen)
    extra = sorted(seen - set(range(1, issues + 1)))
    parts = [f"{len(numbers)} numbers", f"missing {missing[:10]}", f"unexpected {extra[:10]}"]
    return ", ".join([*parts, f"{len(numbers) - len(seen)} duplicates"])


def measure(run: bench.Run) -> None:
    args = run.args
    # One HTTP connection per writer, so the pool neither blocks nor discards connections.
    for model in connection.registered().values():
        model.Meta.max_pool_connections = max(10, *args.writers)
    tables.create_all()
    project_create(tenant=TENANT, key="WARMUP", name="Bench warm-up", created_by="bench")
    for i in range(args.warmup):
        issue_create(tenant=TENANT, project_key="WARMUP", title=f"Warm-up {i}", reporter="bench")
    run.figures.update(issues_per_level=args.issues, warmup_issues=args.warmup, results=[])
    for level, writers in enumerate(args.writers, start=1):
        run.figures["results"].append(run_level(run, level, writers, args.issues))


COLUMNS = bench.columns(
    "writers:d | issues/s=per_s:.1f | lost races/issue=lost_races_per:.3f | @floors | "
    "refused writes/issue=refused_per:.3f | DynamoDB WCU/issue=dynamodb_wcu_per_issue:.3f | "
    "max attempts=max_attempts:d | gave up=gave_up:d"
)


def show(run: bench.Run) -> None:
    bench.show_table(None, COLUMNS, run.figures.get("results"))


def main(argv: list[str] | None = None) -> int:
    headline = ", {issues} issues per level, writers {writers}"
    return bench.run(
        "issue_numbers", parse_args(argv), measure, show, headline=headline, expected=(SequenceContention,)
    )


if __name__ == "__main__":
    sys.exit(main())
