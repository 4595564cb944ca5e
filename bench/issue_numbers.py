"""Issue numbers under contention: throughput, lost races and capacity of ``issue_create``.

For each level of concurrent writers (threads) a fresh project receives ``--issues`` issues in
total, spread over the writers. Each issue takes the next number with the sort-key sequence
(consistent Query of the largest SK, Limit 1, then a PutItem conditioned on
``attribute_not_exists``); a writer that loses the race re-reads and tries again.

The issues have titles of a few words ("Bench issue 3.17") and no labels; since issue 18 title
words are the search engine's, not DynamoDB entries, so each one is written the way the product
writes an unlabelled issue: one PutItem of the issue with its 3 list-index entries. DynamoDB's
floor per issue is 1 RCU (one consistent read of an item ≤ 4 KB), 2 requests, and the WCU of what
was written, worked out from the items as stored after the level, read back unmetered (the reads:
the item each Query found, the previous issue, ≤ 4 KB here; the writes: ``pattern_rows.issue_writes``:
4 WCU, the same on DynamoDB Local; a labelled issue's create is a TransactWriteItems with its
``labels`` entries, which Local charges otherwise). Each lost race adds one refused write — a
PutItem, which DynamoDB charges 1 WCU, or, for a labelled issue, a cancelled transaction, which the
pricing rules applied here do not price; DynamoDB Local reports neither — then a consistent GetItem
of the number tried (1 RCU: the call's own write, its answer lost?) and the next consistent Query
(1 RCU). "DynamoDB
WCU/issue" is the measured WCU with Local's difference taken out and the refused PutItems added.

Printed on stdout: a table (one row per level), the notes on the floors and, last, exactly one
line of JSON with every figure. Exit status: 0 when every level handed out exactly 1..N and every
figure is its floor or explained, 1 when not, 2 when refused.

    python -m devtools.services run -- .venv/bin/python bench/issue_numbers.py
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from botocore import handlers

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from pattern_rows.issue_writes import LOCAL_TRANSACTION, Stored, WriteCost, stored_project, total_cost, write_cost

from ddbmodels.core import connection, tables
from ddbmodels.core.errors import SequenceContention
from ddbmodels.issues import CollectionItem, collection_key, issue_create, issue_numbers, project_create
from ddbmodels.patterns.sequences import BACKOFF
from devtools import bench

TENANT = "bench"
REPLAY = "which DynamoDB Local answers as an idempotent replay without the index entries' share (DynamoDB: read units)"
# A writer whose issue_create gives up (SequenceContention) tries the same issue again, this often at most:
# give-ups are measured (an overload symptom); only a writer that cannot get any number fails the run.
GIVE_UP_LIMIT = 10
LOST_RACE = (
    "each lost race: a refused write — a cancelled transaction (issues with title words) or a refused PutItem, which "
    "DynamoDB charges 1 WCU (see 'DynamoDB WCU/issue'); DynamoDB Local reports no capacity for either — then a "
    "consistent GetItem of the number tried (1 RCU: was it this call's own, its answer lost?) and one more "
    "consistent Query (1 RCU)"
)


class Resent:
    """Issue transactions botocore sent again (``RetryAttempts``) and that succeeded: WCU reported, by issue key.

    A transaction whose answer was lost (read timeout: DynamoDB Local answers slowly under many
    writers on a small machine) is sent again with the same ClientRequestToken; if the first one
    committed, the second is an idempotent replay, and DynamoDB Local reports it without the index
    entries' share (``WriteCost.local_replay``).
    """

    def __init__(self) -> None:
        self.reported: dict[tuple[str, int], float] = {}
        self._lock = threading.Lock()

    def before(self, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        for action in params.get("TransactItems", ()):
            put = action.get("Put", {})
            if put.get("TableName") == CollectionItem.Meta.table_name:
                context["bench_issue"] = (put["Item"]["pk"]["S"], int(put["Item"]["n"]["N"]))

    def after(self, parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        if (
            parsed.get("ResponseMetadata", {}).get("RetryAttempts")
            and "Error" not in parsed
            and "bench_issue" in context
        ):
            wcu = sum(float(entry.get("CapacityUnits") or 0) for entry in parsed.get("ConsumedCapacity") or ())
            with self._lock:
                self.reported[context["bench_issue"]] = wcu


RESENT = Resent()
# Every botocore session created from now on (PynamoDB makes one per thread) calls these hooks.
handlers.BUILTIN_HANDLERS.append(("before-parameter-build.dynamodb.TransactWriteItems", RESENT.before))
handlers.BUILTIN_HANDLERS.append(("after-call.dynamodb.TransactWriteItems", RESENT.after))


def replayed(project_pk: str, written: dict[int, WriteCost]) -> tuple[int, float]:
    """Resent issue transactions of one project that were replays: how many, and Local's WCU they left out."""
    count, left_out = 0, 0.0
    for (pk, number), reported in RESENT.reported.items():
        if pk != project_pk:
            continue
        cost = written[number]
        bench.check(
            reported in (cost.local, cost.local_replay),
            f"issue {number} was sent again and charged {reported} WCU: neither its write ({cost.local}) "
            f"nor its replay ({cost.local_replay})",
        )
        if reported != cost.local:
            count, left_out = count + 1, left_out + cost.local - reported
    return count, left_out


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("issue_numbers", __doc__)
    bench.levels(parser, "--writers", [1, 4, 16], "concurrent writers (threads) per level, each in its own project")
    bench.count(parser, "--issues", 400, "issues per level, spread over its writers")
    bench.count(parser, "--warmup", 50, "untimed issues first, in a project of their own (DynamoDB Local's JIT)")
    args = parser.parse_args(argv)
    # --quick: 4 writers still lose races (the lost races' explanation is exercised), in a few seconds
    return bench.quick_sizes(parser, args, writers=[1, 4], issues=120, warmup=20)


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
    stored_issues = stored_project(TENANT, project_key)
    written = {n: write_cost(Stored(), issue) for n, issue in stored_issues.items()}
    # Reads from the items as stored (read back unmetered): issue n's Query of the top item read item n − 1
    # (the project's SK 0 for the first); a lost race's GetItem and next Query each read an issue.
    sizes = {n: bench.item_size(issue.item or {}) for n, issue in stored_issues.items()}
    sizes[0] = project_item_size(project_key)
    reads = sum(bench.read_units(sizes[n - 1], consistent=True) for n in range(1, issues + 1))
    race_read = bench.read_units(max(sizes.values()), consistent=True)
    dynamodb_wcu, local_wcu = total_cost(written.values())
    plain = sum(1 for cost in written.values() if not cost.transaction)
    refused_puts = meter.by_operation["PutItem"] - plain  # the other lost races were cancelled transactions
    replays, left_out = replayed(collection_key(TENANT, project_key), written)
    local_why = LOCAL_TRANSACTION + (f"; {replays} sent again after a lost answer, {REPLAY}" if replays else "")
    local = bench.Difference(local_why, bench.Cost(0, local_wcu - left_out - dynamodb_wcu))
    verdict = run.judge(
        f"{writers} writers",
        bench.Cost.of(meter),
        bench.Cost(reads, dynamodb_wcu, 2 * issues),
        local=local if local.cost.wcu else None,
        extras=[bench.Difference(LOST_RACE, bench.Cost(2 * race_read, 0, 3).times(lost))],
        per=issues,
    )
    return {
        "writers": writers,
        "project": project_key,
        "transactions": issues - plain,
        "refused_puts": refused_puts,
        "replays": replays,
        "dynamodb_wcu_per_issue": round((meter.wcu - (local_wcu - left_out - dynamodb_wcu) + refused_puts) / issues, 4),
        "item_bytes": bench.item_size(got.sample.serialize()) if got.sample is not None else None,
        **got.figures(),
        **verdict.cells(),
    }


def project_item_size(project_key: str) -> int:
    """The project's item (SK 0) as stored, by DynamoDB's sizes: read back unmetered."""

    def read() -> int:
        key = {"pk": {"S": collection_key(TENANT, project_key)}, "n": {"N": "0"}}
        item = connection.client().get_item(TableName=CollectionItem.Meta.table_name, Key=key, ConsistentRead=True)
        return bench.item_size(item["Item"])

    return bench.unmetered(read)


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
    "max attempts=max_attempts:d | gave up=gave_up:d | replays:d"
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
