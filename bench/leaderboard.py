"""The write-sharded leaderboard: RCU of a top 10 by shard count, of a cached top, and WCU of an award.

1. **reads**, once per ``--shards`` level (default 1, ``LEADERBOARD_SHARDS`` (4), 8): a tenant of
   its own gets ``--users`` members with random scores (bare ``ADD``s, not measured); then
   ``--reads`` top-10 and top-50 reads (N Queries, ``Limit K``, merged) and the rank of the
   median member (N COUNT Queries) are measured, and every top is checked against a brute-force
   ranking. The floor of a top is at least 0.5 RCU per shard (a Query reads at least one 4 KB unit).
   The hottest index key's share of the members is what it takes of the score writes.
2. **cache**: the product's selector (Django's Redis cache, a throwaway Redis started here) on
   the ``LEADERBOARD_SHARDS`` level: a miss, then ``--reads`` hits, which must cost 0 requests.
3. **awards**: ``--awards`` resolved issues over ``--assignees`` members, each awarded (one
   TransactWriteItems: ConditionCheck issue + Put award + Update score ``ADD``), awarded again
   (refused), then reopened and revoked (GetItem + TransactWriteItems). Transactional writes
   cost 2 WCU per KB and item: 6 WCU for the three items, plus the score's ``top`` index entry.

DynamoDB's floors, from the items read back unmetered (never from the meter judged): a Query of the
``top`` index 0.5 RCU per started 4 KB of the KEYS_ONLY entries it contributes (``pk``, ``tp``,
``sc`` as stored), at least 0.5 even for a shard with none (DynamoDB Local charges that one 0).
Above it, computed from the scores as asked: each shard reads k + 1 entries, and when the K-th
place is a tie a shard is cut inside, one more Query of that shard's tied entries — exactly, no
tolerance. An award: TransactWriteItems, 2 WCU per started KB of the issue checked, the award put
and the score updated (the larger of before and after), plus the ``top`` entry (1 WCU per KB when
it is new, a delete and a put when it moves); DynamoDB Local charges that entry twice as well. A
refused award is a cancelled transaction: Local reports no capacity for it, and the pricing rules
applied here do not price it (counted as "refused"); then a consistent GetItem of the award tells
an earlier award from this call's own lost answer (1 RCU per 4 KB, 2 requests). A revoke: that
GetItem and the transaction (the award deleted). The issues it awards are created and resolved
with their list-index and label entries (not measured here: ``bench/patterns.py`` judges issue
writes). Both floors are printed where Local differs; the ratio uses Local's.

Printed on stdout: two tables, the notes on the floors, then exactly one line of JSON. Exit
status 0 when every check held and every figure is its floor or explained, 1 when not, 2 when
refused (no ``DYNAMODB_ENDPOINT_URL`` and no ``--allow-aws``).

    python -m devtools.services run -- .venv/bin/python bench/leaderboard.py
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: find ddbmodels

from ddbmodels import issues as ddb_issues
from ddbmodels import scores as ddb_scores
from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.threads import map_in_threads
from ddbmodels.issues import PRIORITIES, CollectionItem
from ddbmodels.labels import LabelEntry
from ddbmodels.patterns import leaderboard
from ddbmodels.scores import POINTS, ScoresTableItem, award_key, score_key
from devtools import bench, services
from devtools.bench.floors import KEYS_ONLY

SETTINGS_SHARDS = int(os.environ.get("LEADERBOARD_SHARDS", "4"))
TOP_READ = "each shard reads k + 1 entries (one more than it may contribute)"
TIE_CUT = "a tie cut at the K-th place: one more Query of the tied entries on each shard it cuts"
TABLE_KEYS = ("pk",)
INDEX_KEYS = ("tp", "sc")  # the `top` index, KEYS_ONLY
Raw = dict[str, Any]  # an item as DynamoDB stores it (the low-level client's answer)


def parse_args(argv: list[str] | None) -> Any:
    parser = bench.parser("leaderboard", __doc__)
    default = sorted({1, SETTINGS_SHARDS, 8})
    bench.levels(parser, "--shards", default, "shard counts to read with", maximum=64)
    bench.count(parser, "--users", 500, "members per level")
    bench.count(parser, "--reads", 20, "reads measured per top")
    bench.count(parser, "--awards", 200, "issues awarded")
    bench.count(parser, "--assignees", 20, "members they go to")
    return bench.quick_sizes(
        parser, parser.parse_args(argv), shards=[1, SETTINGS_SHARDS], users=100, reads=3, awards=24, assignees=6
    )


def get_raw(table: str, key: Raw) -> Raw | None:
    """One item as stored, read back UNMETERED (a consistent GetItem no meter sees)."""
    client = connection.client()
    return bench.unmetered(lambda: client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item"))


def score_raw(tenant: str, member: str) -> Raw | None:
    return get_raw(ScoresTableItem.Meta.table_name, {"pk": {"S": score_key(tenant, member)}})


def stored_entries(tenant: str, scores: dict[str, int]) -> dict[str, int]:
    """Each member's ``top`` entry size, from the score items read back unmetered (Scan pages no meter sees)."""
    client = connection.client()
    prefix = score_key(tenant, "x")[:-1]  # "<tenant>#user#"

    def scan() -> list[Raw]:
        items: list[Raw] = []
        request: dict[str, Any] = {"TableName": ScoresTableItem.Meta.table_name, "ConsistentRead": True}
        while True:
            page = client.scan(**request)
            items += [i for i in page.get("Items", []) if i["pk"]["S"].startswith(prefix)]
            if "LastEvaluatedKey" not in page:
                return items
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    sizes: dict[str, int] = {}
    for item in bench.unmetered(scan):
        member = item["pk"]["S"][len(prefix) :]
        bench.check(int(item["sc"]["N"]) == scores.get(member), f"{member}: stored score is not the one added")
        entry = bench.index_entry(item, TABLE_KEYS, INDEX_KEYS, KEYS_ONLY)
        bench.check(entry is not None, f"{member}: a score item without its `top` entry")
        sizes[member] = bench.item_size(entry or {})
    bench.check(set(sizes) == set(scores), f"{len(sizes)} score items stored for {len(scores)} members")
    return sizes


def by_shard(scores: dict[str, int], shards: int) -> dict[int, list[tuple[int, str]]]:
    """Each shard's entries, best first (what a Query of it reads, in order)."""
    shard_entries: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for member, score in scores.items():
        shard_entries[leaderboard.shard_of(member, shards)].append((score, member))
    return {s: sorted(shard_entries[s], key=leaderboard.board_order) for s in range(1, shards + 1)}


@dataclass(frozen=True)
class TopReads:
    """What a top K reads, from the scores as asked: DynamoDB's floor, the k + 1 reads, the tie Queries."""

    floor: bench.Cost
    beyond: bench.Cost
    ties: bench.Cost
    empty: int


def top_reads(scores: dict[str, int], sizes: dict[str, int], k: int, shards: int) -> TopReads:
    """Per shard: the entries it contributes to the top K (the floor), the k + 1 it reads, and, when the K-th
    place is a tie the shard is cut inside, one more Query of its entries at that score."""
    entries = by_shard(scores, shards)
    best = set(sorted(((s, m) for m, s in scores.items()), key=leaderboard.board_order)[:k])
    floor = read = ties = bench.Cost()
    first = {shard: listed[: k + 1] for shard, listed in entries.items()}
    merged = sorted((e for listed in first.values() for e in listed), key=leaderboard.board_order)
    cutoff = merged[k - 1][0] if len(merged) > k else None
    for shard, listed in entries.items():
        kept = [e for e in listed if e in best]
        floor += bench.Cost(bench.query_units(sizes[m] for _, m in kept), 0, 1)
        read += bench.Cost(bench.query_units(sizes[m] for _, m in first[shard]), 0, 1)
        if cutoff is not None and len(first[shard]) == k + 1 and first[shard][-1][0] == cutoff:
            ties += bench.Cost(bench.query_units(sizes[m] for s, m in listed if s == cutoff), 0, 1)
    empty = sum(1 for listed in entries.values() if not listed)
    return TopReads(floor, bench.Cost(read.rcu - floor.rcu), ties, empty)


def judge_top(
    run: bench.Run, name: str, meter: Any, k: int, shards: int, scores: dict[str, int], sizes: dict[str, int], n: int
) -> bench.Verdict:
    reads = top_reads(scores, sizes, k, shards)
    extras = [bench.Difference(TOP_READ, reads.beyond.times(n))] if reads.beyond.rcu else []
    if reads.ties.requests:
        extras.append(bench.Difference(TIE_CUT, reads.ties.times(n)))
    return run.judge(
        name,
        bench.Cost.of(meter),
        reads.floor.times(n),
        local=bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * reads.empty * n)) if reads.empty else None,
        extras=extras,
        per=n,
    )


def measure_reads(
    run: bench.Run, tenant: str, k: int, shards: int, reads: int, scores: dict[str, int], sizes: dict[str, int]
) -> dict[str, Any]:
    expected = leaderboard.ranked(sorted(((s, u) for u, s in scores.items()), key=leaderboard.board_order)[:k])
    latencies = []
    with capacity.measure() as meter:
        for _ in range(reads):
            began = time.perf_counter()
            top = ddb_scores.top_scores(tenant=tenant, k=k, shards=shards)
            latencies.append(time.perf_counter() - began)
            bench.check(top == expected, f"top {k} with {shards} shards differs from the brute-force ranking")
    verdict = judge_top(run, f"top {k}, {shards} shards", meter, k, shards, scores, sizes, reads)
    return {**verdict.cells(), "p50_ms": round(1000 * statistics.median(latencies), 2)}


def read_level(run: bench.Run, shards: int, reads: int, scores: dict[str, int]) -> dict[str, Any]:
    tenant, users = f"bench-s{shards}", len(scores)
    map_in_threads(
        lambda u: ddb_scores.score_add(tenant=tenant, username=u, points=scores[u], shards=shards),
        list(scores),
        workers=8,
    )
    sizes = stored_entries(tenant, scores)
    median = sorted(scores.values())[users // 2]
    with capacity.measure() as rank_meter:
        above = ddb_scores.rank_above(tenant=tenant, score=median, shards=shards, cap=10 * users)
    bench.check(
        above.count == sum(1 for s in scores.values() if s > median), f"rank count with {shards} shards is wrong"
    )
    above_median = {m: s for m, s in scores.items() if s > median}
    counted = by_shard(above_median, shards)
    floor = bench.total(
        bench.Cost(bench.query_units(sizes[m] for _, m in counted[shard]), 0, 1) for shard in range(1, shards + 1)
    )
    empty = sum(1 for listed in counted.values() if not listed)
    rank = run.judge(
        f"rank of the median, {shards} shards",
        bench.Cost.of(rank_meter),
        floor,
        local=bench.Difference(bench.LOCAL_EMPTY_QUERY, bench.Cost(-0.5 * empty)) if empty else None,
    )
    spread = Counter(leaderboard.shard_of(u, shards) for u in scores)
    return {
        "shards": shards,
        "users": users,
        "top10": measure_reads(run, tenant, 10, shards, reads, scores, sizes),
        "top50": measure_reads(run, tenant, 50, shards, reads, scores, sizes),
        "rank_median": {"above": above.count, **rank.cells()},
        "hottest_key_share": round(max(spread.values()) / users, 3),
    }


def cached_reads(run: bench.Run, shards: int, reads: int, scores: dict[str, int]) -> list[dict[str, Any]]:
    """The product's cache-aside selector on a throwaway Redis: one miss, then hits (0 requests)."""
    from django.test.utils import override_settings

    from tracker.cache import invalidate
    from tracker.selectors.leaderboard import leaderboard_cache_keys, leaderboard_top

    tenant = f"bench-s{shards}"
    with override_settings(LEADERBOARD_SHARDS=shards, LEADERBOARD_CACHE_SECONDS=300):
        invalidate(*leaderboard_cache_keys(tenant))
        with capacity.measure() as miss:
            fresh = leaderboard_top(tenant=tenant, k=10)
        with capacity.measure() as hits:
            for _ in range(reads):
                bench.check(leaderboard_top(tenant=tenant, k=10) == fresh, "a cached top differs from the one read")
    sizes = stored_entries(tenant, scores)
    missed = judge_top(run, f"top 10, cache miss ({shards} shards)", miss, 10, shards, scores, sizes, 1)
    hit = run.judge("top 10, cache hit", bench.Cost.of(hits), bench.Cost(0, 0, 0), per=reads)
    return [{"what": missed.name, **missed.cells()}, {"what": hit.name, **hit.cells()}]


def size(item: Raw | None) -> int:
    return 0 if item is None else bench.item_size(item)


@dataclass
class Tally:
    """One kind of operation: its own meter, DynamoDB's floor and Local's difference from the items it wrote."""

    meter: capacity.CapacityMeter = field(default_factory=capacity.CapacityMeter)
    floor: bench.Cost = field(default_factory=lambda: bench.Cost(0, 0, 0))
    local_wcu: float = 0
    n: int = 0

    def add(self, meter: capacity.CapacityMeter, floor: bench.Cost, local_wcu: int = 0) -> None:
        self.meter.add(meter)
        self.floor, self.local_wcu, self.n = self.floor + floor, self.local_wcu + local_wcu, self.n + 1


def award_writes(issue: Raw | None, award: Raw | None, before: Raw | None, after: Raw | None) -> tuple[bench.Cost, int]:
    """One award's or revoke's TransactWriteItems, from the items read back unmetered: 2 WCU per KB for the issue
    checked, the award put or deleted and the score updated (the larger of before and after), + its `top`
    entry (put, or moved: a delete and a put); DynamoDB Local charges that entry twice (the second value)."""
    entry = bench.index_write_units(before, after, TABLE_KEYS, INDEX_KEYS, KEYS_ONLY)
    items = (
        bench.write_units(size(issue), transactional=True)
        + bench.write_units(size(award), transactional=True)
        + bench.update_units(size(before), size(after), transactional=True)
    )
    return bench.Cost(0, items + entry, 1), entry


def awards(run: bench.Run, count: int, assignees: int) -> list[dict[str, Any]]:
    tenant, key = "bench-awards", "AWD"
    ddb_issues.project_create(tenant=tenant, key=key, name="Awards", created_by="bench")
    issues = []
    for i in range(count):
        item = ddb_issues.issue_create(
            tenant=tenant,
            project_key=key,
            title=f"#{i}",
            reporter="bench",
            assignee=f"dev{i % assignees:02d}",
            priority=PRIORITIES[i % len(PRIORITIES)],
        ).item
        issues.append(ddb_issues.issue_change_status(item, to="resolved"))
    scores_table = ScoresTableItem.Meta.table_name

    def issue_raw(issue: Any) -> Raw | None:
        return get_raw(CollectionItem.Meta.table_name, {"pk": {"S": str(issue.pk)}, "n": {"N": str(issue.number)}})

    def award_raw(issue: Any) -> Raw | None:
        return get_raw(scores_table, {"pk": {"S": award_key(tenant, key, int(issue.number))}})

    first, later, again, revoked = Tally(), Tally(), Tally(), Tally()
    seen: set[str] = set()
    for issue in issues:
        member = str(issue.assignee)
        before = score_raw(tenant, member)
        with capacity.measure() as meter:
            outcome = ddb_scores.award_issue(issue).outcome
        bench.check(outcome is ddb_scores.Outcome.AWARDED, f"{issue.reference} was not awarded")
        cost, entry = award_writes(issue_raw(issue), award_raw(issue), before, score_raw(tenant, member))
        (later if member in seen else first).add(meter, cost, entry)
        seen.add(member)
    for issue in issues:  # a refused award: the cancelled transaction (not priced) + a consistent GetItem of the award
        with capacity.measure() as meter:
            bench.check(not ddb_scores.award_issue(issue).changed, f"{issue.reference}: a duplicated award counted")
        again.add(meter, bench.Cost(bench.read_units(size(award_raw(issue)), consistent=True), 0, 2))
    bench.check(again.meter.conditional_failures == count, f"{again.meter.conditional_failures} of {count} refused")
    expected = Counter[str]()
    for issue in issues:
        expected[str(issue.assignee)] += POINTS[issue.priority]
    board = {u.member: u.score for u in ddb_scores.top_scores(tenant=tenant, k=assignees)}
    bench.check(dict(expected) == board, "scores after the awards are not the sum of the points")
    reopened = [ddb_issues.issue_change_status(issue, to="open") for issue in issues]
    for issue in reopened:
        member, award = str(issue.assignee), award_raw(issue)
        before = score_raw(tenant, member)
        with capacity.measure() as meter:
            bench.check(ddb_scores.revoke_issue(issue).changed, f"{issue.reference}: the award was not revoked")
        bench.check(award_raw(issue) is None, f"{issue.reference}: the award is still stored")
        cost, entry = award_writes(issue_raw(issue), award, before, score_raw(tenant, member))
        read = bench.Cost(bench.read_units(size(award), consistent=True), 0, 1)  # the award, to know its points
        revoked.add(meter, cost + read, entry)
    bench.check(not ddb_scores.top_scores(tenant=tenant, k=assignees), "scores are not back to zero after the revokes")

    judged = [
        ("award (first of a member)", first),
        ("award (member already scored)", later),
        ("award again (refused)", again),
        ("revoke", revoked),
    ]
    rows = []
    for name, tally in judged:
        local = (
            bench.Difference(f"{bench.LOCAL_TRANSACT_INDEX} (the `top` entry)", bench.Cost(0, tally.local_wcu))
            if tally.local_wcu
            else None
        )
        verdict = run.judge(name, bench.Cost.of(tally.meter), tally.floor, local=local, per=max(tally.n, 1))
        rows.append({"what": name, **verdict.cells()})
    return rows


def measure(run: bench.Run) -> None:
    args = run.args
    for model in (CollectionItem, LabelEntry, ScoresTableItem):  # the tables this run needs (labels: an issue's)
        model.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
    rng = random.Random(2024)
    boards: dict[int, dict[str, int]] = {}
    run.figures.update(users=args.users, reads=[])
    for shards in args.shards:
        boards[shards] = {f"user{i:04d}": rng.randint(1, 10 * args.users) for i in range(args.users)}
        run.figures["reads"].append(read_level(run, shards, args.reads, boards[shards]))
    cache_level = SETTINGS_SHARDS if SETTINGS_SHARDS in args.shards else args.shards[0]
    run.figures["operations"] = cached_reads(run, cache_level, args.reads, boards[cache_level])
    run.figures["operations"] += awards(run, args.awards, args.assignees)


READ_COLUMNS = bench.columns(
    "shards:d | users:d | top-10 RCU/read=t10_rcu:.2f | min RCU=t10_min:.2f | Local min=t10_local:> | "
    "Queries/read=t10_requests:> | top-50 RCU/read=t50_rcu:.2f | min RCU=t50_min:.2f | "
    "rank RCU (median)=rank_rcu:.2f | min RCU=rank_min:.2f | Local min=rank_local:> | "
    "hottest key share=hottest_key_share:.3f | top-10 p50 ms=t10_ms:.2f"
)
WRITE_COLUMNS = bench.columns("operation=what:s | @floors | @req")


def show(run: bench.Run) -> None:
    rows = [
        {
            **level,
            "t10_rcu": level["top10"]["m_rcu"],
            "t10_min": level["top10"]["f_rcu"],
            "t10_local": level["top10"]["l_rcu"],
            "t10_requests": level["top10"]["m_req"],
            "t50_rcu": level["top50"]["m_rcu"],
            "t50_min": level["top50"]["f_rcu"],
            "rank_rcu": level["rank_median"]["m_rcu"],
            "rank_min": level["rank_median"]["f_rcu"],
            "rank_local": level["rank_median"]["l_rcu"],
            "t10_ms": level["top10"]["p50_ms"],
        }
        for level in run.figures.get("reads", [])
    ]
    bench.show_table(None, READ_COLUMNS, rows)
    bench.show_table("", WRITE_COLUMNS, run.figures.get("operations"))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if bench.refused(connection.DynamoSettings.from_env(), "bench/leaderboard.py", args.allow_aws):
        return 2
    redis = services.start("redis")
    try:
        # Django (for the cached selector) configures ddbmodels from the environment when it starts;
        # bench.run afterwards points every model at this run's own prefix.
        os.environ["REDIS_URL"] = f"{redis.url}/0"
        os.environ["DJANGO_SETTINGS_MODULE"] = "tracker.settings.test"
        os.environ.setdefault("LOG_LEVEL", "WARNING")  # botocore announces its credentials at INFO
        import django

        django.setup()
        return bench.run("leaderboard", args, measure, show, headline=", {users} members, shards {shards}")
    finally:
        redis.stop()


if __name__ == "__main__":
    sys.exit(main())
