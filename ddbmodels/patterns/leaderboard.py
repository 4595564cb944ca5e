"""Leaderboard from a write-sharded GSI: N Queries, score descending, ``Limit K``, merged.

The pattern (a sorted index, write-sharded): every score item carries a GSI
partition key ``<board>#<n>`` and its score (N) as the GSI sort key. One constant partition key
per board would serialize every score change of the board on one index partition (a hot
key); with N calculated suffixes, n = crc32(member) % N + 1 (stable for a
member, across processes), writes spread over N keys. Reading the top K costs N Queries, one
per shard, ``ScanIndexForward=False, Limit=K+1``: a shard's first K entries are the only ones of
that shard that can be in the overall top K (the one more tells whether a tie is cut). The N
lists are merged.

Ties: DynamoDB orders entries with equal index sort keys arbitrarily, so a shard cut at K may
return any of its entries tied at the cut. The order here is score descending, then member
ascending, exactly: when a shard's K+1-th entry scores as much as the overall K-th place, one
more Query reads all of that shard's entries at that score (only then).

Cost: 0.5 RCU per started 4 KB of index entries read, per Query (eventually consistent; GSIs
offer nothing else) — a top 10 of small KEYS_ONLY entries is 0.5 RCU per shard, N × 0.5 in all.
Reading with more shards than were written is harmless (extra keys are empty); fewer misses
members, so N may grow but never shrink.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ddbmodels.core import connection
from ddbmodels.core.keys import shard_suffix
from ddbmodels.core.threads import map_in_threads

MAX_WORKERS = 8


@dataclass(frozen=True)
class BoardIndex:
    """Where a board lives: the table, its sharded index, the two key attributes, and how many shards."""

    table: str
    index: str
    shard_attr: str
    score_attr: str
    shards: int
    member_of: Callable[[dict[str, Any]], str]  # an index entry (wire format) → the member's name

    def __post_init__(self) -> None:
        if self.shards < 1:
            raise ValueError(f"shards must be ≥ 1, got {self.shards}")


@dataclass(frozen=True)
class Ranked:
    """A member's place: competition ranking (1, 2, 2, 4): 1 + how many scored strictly more."""

    rank: int
    member: str
    score: int


def shard_of(member: str, shards: int) -> int:
    """The calculated write shard of a member, 1..shards (crc32: the same in every process)."""
    return shard_suffix(member, shards)


def shard_key(board: str, shard: int) -> str:
    """GSI partition key of a board's shard: ``<board>#<n>``."""
    return f"{board}#{shard}"


def _entries(index: BoardIndex, request: dict[str, Any], limit: int | None) -> Iterator[tuple[int, str]]:
    """Query pages of the index until ``limit`` entries (or the end): (score, member)."""
    client = connection.client()
    request = {"TableName": index.table, "IndexName": index.index, "ReturnConsumedCapacity": "TOTAL", **request}
    returned = 0
    while limit is None or returned < limit:
        if limit is not None:
            request["Limit"] = limit - returned
        page = client.query(**request)
        for item in page.get("Items", []):
            returned += 1
            yield int(item[index.score_attr]["N"]), index.member_of(item)
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _shard_query(index: BoardIndex, board: str, shard: int, condition: str, score: int) -> dict[str, Any]:
    return {
        "KeyConditionExpression": f"#p = :p AND #s {condition} :s",
        "ExpressionAttributeNames": {"#p": index.shard_attr, "#s": index.score_attr},
        "ExpressionAttributeValues": {":p": {"S": shard_key(board, shard)}, ":s": {"N": str(score)}},
        "ScanIndexForward": False,
    }


def top(index: BoardIndex, board: str, k: int, *, min_score: int = 1) -> list[Ranked]:
    """Query each shard, SK desc, Limit k+1, merged — 0.5 RCU per 4 KB read per shard (N × 0.5 for small tops).

    The K best members with at least ``min_score``, score descending then member ascending. Each
    shard reads one entry more than K (the same 0.5 RCU for small entries): when that extra
    entry scores below the K-th place, nothing tied with the K-th place is hidden in the shard.
    Only a tie across the K-th place costs one more Query, on each shard cut inside the tie.
    """
    if k < 1:
        raise ValueError(f"k must be ≥ 1, got {k}")
    shards = range(1, index.shards + 1)

    def read(shard: int) -> list[tuple[int, str]]:
        return list(_entries(index, _shard_query(index, board, shard, ">=", min_score), k + 1))

    per_shard = dict(zip(shards, map_in_threads(read, shards, workers=min(index.shards, MAX_WORKERS)), strict=True))
    merged = _merge(per_shard.values())
    if len(merged) > k:
        cutoff = merged[k - 1][0]
        # A shard that returned k+1 entries may hold more, none above its last; more at the cutoff
        # only when its last is at the cutoff (it cannot be above: < k members score more).
        cut = [s for s, entries in per_shard.items() if len(entries) == k + 1 and entries[-1][0] == cutoff]

        def ties(shard: int) -> list[tuple[int, str]]:
            return list(_entries(index, _shard_query(index, board, shard, "=", cutoff), None))

        for shard, tied in zip(cut, map_in_threads(ties, cut, workers=min(len(cut), MAX_WORKERS)), strict=True):
            per_shard[shard] = [e for e in per_shard[shard] if e[0] != cutoff] + tied
        if cut:
            merged = _merge(per_shard.values())
    return ranked(merged[:k])


def board_order(entry: tuple[int, str]) -> tuple[int, str]:
    """Sort key of (score, member): score descending, then member ascending."""
    return -entry[0], entry[1]


def _merge(lists: Iterable[list[tuple[int, str]]]) -> list[tuple[int, str]]:
    # Each shard's list is in score order already, but its ties are in no defined order.
    return list(heapq.merge(*(sorted(entries, key=board_order) for entries in lists), key=board_order))


def ranked(entries: list[tuple[int, str]]) -> list[Ranked]:
    """(score, member) in board order → Ranked with competition ranks (ties share a place)."""
    places: list[Ranked] = []
    for position, (score, member) in enumerate(entries, start=1):
        rank = places[-1].rank if places and places[-1].score == score else position
        places.append(Ranked(rank=rank, member=member, score=score))
    return places


@dataclass(frozen=True)
class Above:
    """How many members scored strictly more; ``exact`` False when counting stopped at the cap."""

    count: int
    exact: bool

    @property
    def rank(self) -> int:
        return self.count + 1


def count_above(index: BoardIndex, board: str, score: int, *, cap: int = 1000) -> Above:
    """Query each shard, SK > score, Select COUNT — 0.5 RCU per 4 KB of entries counted, per shard.

    The cost grows with the number of members above ``score`` (≈ 60 bytes an entry: ≈ 70 per
    0.5 RCU on AWS); each shard stops after ``ceil(cap / N)`` entries, which bounds the cost and
    makes the answer a lower bound (``exact`` False).
    """
    per_shard_cap = -(-cap // index.shards)

    def count(shard: int) -> tuple[int, bool]:
        client = connection.client()
        request = {
            "TableName": index.table,
            "IndexName": index.index,
            "Select": "COUNT",
            "ReturnConsumedCapacity": "TOTAL",
            **_shard_query(index, board, shard, ">", score),
        }
        counted = 0
        while counted < per_shard_cap:
            page = client.query(**request, Limit=per_shard_cap - counted)
            counted += int(page.get("Count", 0))
            if "LastEvaluatedKey" not in page:
                return counted, True
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return counted, False

    shards = range(1, index.shards + 1)
    counts = map_in_threads(count, shards, workers=min(index.shards, MAX_WORKERS))
    return Above(count=sum(c for c, _ in counts), exact=all(done for _, done in counts))
