"""The write-sharded leaderboard: RCU of a top 10 by shard count, of a cached top, and WCU of an award.

1. **reads**, once per ``--shards`` level (default 1, ``LEADERBOARD_SHARDS`` (4), 8): a tenant of
   its own gets ``--users`` members with random scores (bare ``ADD``s, not measured); then
   ``--reads`` top-10 and top-50 reads (N Queries, ``Limit K``, merged) and the rank of the
   median member (N COUNT Queries) are measured, and every top is checked against a brute-force
   ranking. The floor of a top is 0.5 RCU per shard (a Query reads at least one 4 KB unit).
   The hottest index key's share of the members is what it takes of the score writes.
2. **cache**: the product's selector (Django's Redis cache, a throwaway Redis started here) on
   the ``LEADERBOARD_SHARDS`` level: a miss, then ``--reads`` hits, which must cost 0 requests.
3. **awards**: ``--awards`` resolved issues over ``--assignees`` members, each awarded (one
   TransactWriteItems: ConditionCheck issue + Put award + Update score ``ADD``), awarded again
   (refused), then reopened and revoked (GetItem + TransactWriteItems). Transactional writes
   cost 2 WCU per KB and item: 6 WCU for the three items, plus the score's ``top`` index entry.

Printed on stdout: two tables, then exactly one line of JSON. Exit status 0 when every check
held, 1 when not, 2 when refused (no ``DYNAMODB_ENDPOINT_URL`` and no ``--allow-aws``).

    python -m devtools.services run -- .venv/bin/python bench/leaderboard.py
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (`python bench/leaderboard.py`): find ddbmodels
    sys.path.insert(0, str(ROOT))

from ddbmodels import issues as ddb_issues  # noqa: E402
from ddbmodels import scores as ddb_scores  # noqa: E402
from ddbmodels.core import capacity, connection, tables  # noqa: E402
from ddbmodels.issues import PRIORITIES, CollectionItem  # noqa: E402
from ddbmodels.patterns import leaderboard  # noqa: E402
from ddbmodels.scores import POINTS, ScoresTableItem  # noqa: E402
from devtools import bench, services  # noqa: E402

RCU_FLOOR_PER_QUERY = 0.5
TRANSACT_ITEMS_PER_AWARD = 3  # issue checked, award put, score updated
SETTINGS_SHARDS = int(os.environ.get("LEADERBOARD_SHARDS", "4"))


class CheckFailed(Exception):
    """A figure the benchmark verifies did not hold."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/leaderboard.py", description=__doc__.splitlines()[0])
    levels = sorted({1, SETTINGS_SHARDS, 8})
    parser.add_argument(
        "--shards",
        type=bench.int_list("shard counts", maximum=64),
        default=levels,
        metavar="N,N,...",
        help=f"shard counts to read with (default: {','.join(map(str, levels))})",
    )
    parser.add_argument("--users", type=bench.positive_int, default=500, help="members per level (default: 500)")
    parser.add_argument("--reads", type=bench.positive_int, default=20, help="reads measured per top (default: 20)")
    parser.add_argument("--awards", type=bench.positive_int, default=200, help="issues awarded (default: 200)")
    parser.add_argument("--assignees", type=bench.positive_int, default=20, help="members they go to (default: 20)")
    bench.add_allow_aws(parser)
    return parser.parse_args(argv)


def per(meter: capacity.CapacityMeter, n: int) -> dict[str, float]:
    return {"rcu": round(meter.rcu / n, 4), "wcu": round(meter.wcu / n, 4), "requests": round(meter.requests / n, 3)}


def expected_top(scores: dict[str, int], k: int) -> list[leaderboard.Ranked]:
    return leaderboard.ranked(sorted(((s, u) for u, s in scores.items()), key=leaderboard.board_order)[:k])


def measure_reads(tenant: str, k: int, shards: int, reads: int, scores: dict[str, int]) -> dict[str, Any]:
    latencies = []
    with capacity.measure() as meter:
        for _ in range(reads):
            began = time.perf_counter()
            top = ddb_scores.top_scores(tenant=tenant, k=k, shards=shards)
            latencies.append(time.perf_counter() - began)
            if top != expected_top(scores, k):
                raise CheckFailed(f"top {k} with {shards} shards differs from the brute-force ranking")
    return {**per(meter, reads), "p50_ms": round(1000 * statistics.median(latencies), 2)}


def read_level(shards: int, users: int, reads: int, rng: random.Random) -> dict[str, Any]:
    tenant = f"bench-s{shards}"
    scores = {f"user{i:04d}": rng.randint(1, 10 * users) for i in range(users)}
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(lambda u: ddb_scores.score_add(tenant=tenant, username=u, points=scores[u], shards=shards), scores)
        )
    median = sorted(scores.values())[users // 2]
    with capacity.measure() as rank_meter:
        above = ddb_scores.rank_above(tenant=tenant, score=median, shards=shards, cap=10 * users)
    if above.count != sum(1 for s in scores.values() if s > median):
        raise CheckFailed(f"rank count with {shards} shards is wrong")
    spread = Counter(leaderboard.shard_of(u, shards) for u in scores)
    return {
        "shards": shards,
        "users": users,
        "top10": measure_reads(tenant, 10, shards, reads, scores),
        "top50": measure_reads(tenant, 50, shards, reads, scores),
        "floor_rcu": shards * RCU_FLOOR_PER_QUERY,
        "rank_median": {"above": above.count, **per(rank_meter, 1)},
        "hottest_key_share": round(max(spread.values()) / users, 3),
    }


def cached_reads(shards: int, reads: int) -> dict[str, Any]:
    """The product's cache-aside selector on a throwaway Redis: one miss, then hits."""
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
                if leaderboard_top(tenant=tenant, k=10) != fresh:
                    raise CheckFailed("a cached top differs from the one read from DynamoDB")
    if hits.requests:
        raise CheckFailed(f"cached reads made {hits.requests} DynamoDB requests")
    return {"shards": shards, "miss": per(miss, 1), "hit": per(hits, reads)}


def awards(count: int, assignees: int) -> dict[str, Any]:
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
    first, later = capacity.CapacityMeter(), capacity.CapacityMeter()
    seen: set[str] = set()
    for issue in issues:
        with capacity.measure() as meter:
            if ddb_scores.award_issue(issue).outcome is not ddb_scores.Outcome.AWARDED:
                raise CheckFailed(f"{issue.reference} was not awarded")
        (later if issue.assignee in seen else first).add(meter)
        seen.add(str(issue.assignee))
    with capacity.measure() as again:
        if any(ddb_scores.award_issue(issue).changed for issue in issues):
            raise CheckFailed("a duplicated award counted")
    expected = Counter[str]()
    for issue in issues:
        expected[str(issue.assignee)] += POINTS[issue.priority]
    if dict(expected) != {u.member: u.score for u in ddb_scores.top_scores(tenant=tenant, k=assignees)}:
        raise CheckFailed("scores after the awards are not the sum of the points")
    reopened = [ddb_issues.issue_change_status(issue, to="open") for issue in issues]
    with capacity.measure() as revoked:
        if not all(ddb_scores.revoke_issue(issue).changed for issue in reopened):
            raise CheckFailed("an award was not revoked")
    if ddb_scores.top_scores(tenant=tenant, k=assignees):
        raise CheckFailed("scores are not back to zero after the revokes")
    both = capacity.CapacityMeter()
    both.add(first)
    both.add(later)
    return {
        "awards": count,
        "assignees": assignees,
        "award": per(both, count),
        "award_first_of_member": per(first, len(seen)),
        "award_later": per(later, count - len(seen)),
        "award_again": {**per(again, count), "refused": again.conditional_failures},
        "revoke": per(revoked, count),
        "theory_wcu_without_index": 2 * TRANSACT_ITEMS_PER_AWARD,
    }


READ_COLUMNS: list[bench.Column] = [
    ("shards", "shards", "d"),
    ("users", "users", "d"),
    ("top-10 RCU/read", "t10_rcu", ".2f"),
    ("Queries/read", "t10_requests", ".1f"),
    ("floor RCU", "floor_rcu", ".1f"),
    ("top-50 RCU/read", "t50_rcu", ".2f"),
    ("rank RCU (median)", "rank_rcu", ".1f"),
    ("hottest key share", "hottest_key_share", ".3f"),
    ("top-10 p50 ms", "t10_ms", ".2f"),
]
WRITE_COLUMNS: list[bench.Column] = [
    ("operation", "what", "s"),
    ("RCU/op", "rcu", ".2f"),
    ("WCU/op", "wcu", ".2f"),
    ("requests/op", "requests", ".2f"),
]


def print_tables(result: dict[str, Any]) -> None:
    rows = [
        {
            **level,
            "t10_rcu": level["top10"]["rcu"],
            "t10_requests": level["top10"]["requests"],
            "t50_rcu": level["top50"]["rcu"],
            "rank_rcu": level["rank_median"]["rcu"],
            "t10_ms": level["top10"]["p50_ms"],
        }
        for level in result.get("reads", [])
    ]
    if rows:
        print(bench.table(READ_COLUMNS, rows))
    ops = []
    if "cache" in result:
        cache = result["cache"]
        ops += [{"what": f"top 10, cache miss ({cache['shards']} shards)", **cache["miss"]}]
        ops += [{"what": "top 10, cache hit", **cache["hit"]}]
    if "awards" in result:
        a = result["awards"]
        ops += [{"what": "award (first of a member)", **a["award_first_of_member"]}]
        ops += [{"what": "award (member already scored)", **a["award_later"]}]
        ops += [{"what": "award again (refused)", **a["award_again"]}]
        ops += [{"what": "revoke", **a["revoke"]}]
    if ops:
        print()
        cells = [[format(op[key], spec) for _, key, spec in WRITE_COLUMNS] for op in ops]
        print(bench.align([title for title, _, _ in WRITE_COLUMNS], cells, left=1))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if bench.refused(connection.DynamoSettings.from_env(), "bench/leaderboard.py", args.allow_aws):
        return 2
    redis = services.start("redis")
    # Django (for the cached selector) configures ddbmodels from the environment when it starts;
    # bench.connect afterwards points every model at this run's own prefix.
    os.environ["REDIS_URL"] = f"{redis.url}/0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "tracker.settings.test"
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # botocore announces its credentials at INFO
    import django

    django.setup()
    target = bench.connect("bench/leaderboard.py", allow_aws=args.allow_aws)
    assert target is not None
    print(f"leaderboard: {target.endpoint}, tables {target.prefix}*, {args.users} members, shards {args.shards}")
    result: dict[str, Any] = {}
    error: str | None = None
    models = [CollectionItem, ScoresTableItem]  # only the tables this run needs
    try:
        for model in models:
            model.create_table(wait=True, billing_mode=tables.PAY_PER_REQUEST)
        rng = random.Random(2024)
        result["reads"] = [read_level(n, args.users, args.reads, rng) for n in args.shards]
        cache_level = SETTINGS_SHARDS if SETTINGS_SHARDS in args.shards else args.shards[0]
        result["cache"] = cached_reads(cache_level, args.reads)
        result["awards"] = awards(args.awards, args.assignees)
    except Exception as failure:  # noqa: BLE001 (reported; the JSON line still ends the run)
        error = bench.failure_text(failure, expected=(CheckFailed,))
    finally:
        for model in models:
            try:
                if model.exists():
                    model.delete_table()
            except Exception as failure:  # noqa: BLE001 (cleanup must not hide the figures)
                print(f"warning: could not delete {model.Meta.table_name}: {failure}", file=sys.stderr)
        redis.stop()
    print_tables(result)
    figures = {"users": args.users, "reads": args.reads, "rcu_floor_per_query": RCU_FLOOR_PER_QUERY, **result}
    return bench.finish("leaderboard", target, error, figures)


if __name__ == "__main__":
    sys.exit(main())
