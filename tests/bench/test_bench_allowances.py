"""The allowances of bench/leaderboard.py and bench/attachments.py, without DynamoDB: computed from what was asked.

Issue 19: an allowance taken from the measurement it judges cannot fail. The leaderboard allowed
0.5 × shards RCU a top read (every shard read twice passed); attachments allowed ``meter.requests - 1``
Scan pages. Here each allowance is computed from the data alone, and one read too many is not explained.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from devtools.bench.floors import Cost, Difference, Verdict
from tests.bench.scripts import BENCH, load_script


def load(name: str) -> ModuleType:
    return load_script(BENCH / f"{name}.py", f"bench_{name}_allowances")


@pytest.fixture(scope="module")
def lb() -> ModuleType:
    return load("leaderboard")


@pytest.fixture(scope="module")
def att() -> ModuleType:
    return load("attachments")


def members(lb: ModuleType, shards: int, per_shard: int) -> list[str]:
    """``per_shard`` member names in each of ``shards`` shards."""
    found: dict[int, list[str]] = {s: [] for s in range(1, shards + 1)}
    i = 0
    while any(len(names) < per_shard for names in found.values()):
        name = f"user{i:04d}"
        listed = found[lb.leaderboard.shard_of(name, shards)]
        if len(listed) < per_shard:
            listed.append(name)
        i += 1
    return [name for names in found.values() for name in names]


def test_a_top_without_a_tie_allows_the_k_plus_1_reads_and_nothing_more(lb: ModuleType) -> None:
    shards, k = 4, 10
    names = members(lb, shards, 30)
    scores = {name: 1000 + i for i, name in enumerate(names)}  # all different: no tie
    sizes = dict.fromkeys(names, 60)
    reads = lb.top_reads(scores, sizes, k, shards)
    assert reads.floor.requests == shards
    assert reads.ties == Cost()  # no tie: no Query more
    measured = reads.floor + reads.beyond
    extras = [Difference("k + 1", reads.beyond)] if reads.beyond.rcu else []
    assert Verdict("top", Cost(measured.rcu, 0, shards), reads.floor, extras=tuple(extras)).ok
    # every shard read twice: 0.5 RCU and a request more per shard
    twice = Cost(measured.rcu + 0.5 * shards, 0, 2 * shards)
    assert Verdict("top", twice, reads.floor, extras=tuple(extras)).status == "NOT EXPLAINED"
    # the old allowance (0.5 × shards RCU, one request per shard) let exactly that pass
    old = Difference("k + 1 and a tie", reads.beyond, Cost(0.5 * shards, 0, shards))
    assert Verdict("top", twice, reads.floor, extras=(old,)).ok


def test_a_tie_at_the_kth_place_allows_one_query_on_each_shard_it_cuts(lb: ModuleType) -> None:
    shards, k = 2, 3
    names = members(lb, shards, 6)
    one, two = names[:6], names[6:]
    scores = dict.fromkeys(names, 50)  # everyone tied: both shards cut inside the tie at the 3rd place
    sizes = dict.fromkeys(names, 100)
    reads = lb.top_reads(scores, sizes, k, shards)
    assert reads.ties.requests == 2  # one Query of the tied entries per shard cut
    assert reads.ties.rcu == 1.0  # each shard's 6 tied entries: 600 B, 0.5 RCU
    only_one = {**dict.fromkeys(one, 50), **{n: 10 + i for i, n in enumerate(two)}}
    assert lb.top_reads(only_one, sizes, k, shards).ties.requests == 1  # the other shard is not cut


def test_scan_pages_come_from_the_table_size(att: ModuleType) -> None:
    mb = 1024 * 1024
    assert [att.scan_pages(n) for n in (0, 1000, mb, mb + 1, 3 * mb - 1)] == [1, 1, 1, 2, 3]


def test_a_transition_floor_comes_from_the_item_before_and_after(att: ModuleType) -> None:
    flying = {"pk": {"S": "t#WEB#1"}, "id": {"S": "a1"}, "st": {"S": "Attaching"}, "gp": {"S": "Attaching#1"}}
    flying |= {"gs": {"S": "2026-01-01T00:00:00.000000+0000"}}
    landed = {k: v for k, v in flying.items() if k not in ("gp", "gs")} | {"st": {"S": "Attached"}}
    moved = flying | {"gs": {"S": "2026-01-01T00:00:01.000000+0000"}}
    assert att.write_floor(None, flying) == Cost(0, 2, 1)  # the item and its entry put
    assert att.write_floor(flying, landed) == Cost(0, 2, 1)  # the item updated, the entry deleted
    assert att.write_floor(flying, moved) == Cost(0, 3, 1)  # the entry's key moves: a delete and a put
    large = flying | {"fn": {"S": "x" * 1500}}
    assert att.write_floor(None, large) == Cost(0, 4, 1)  # 2 KB: 2 WCU for the item, 2 for its ALL entry
    assert att.refused_floor(landed, landed) == Cost(0, 1, 1)
    with pytest.raises(att.bench.CheckFailed):
        att.refused_floor(flying, landed)  # a refused write must change nothing
