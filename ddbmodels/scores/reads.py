"""Reading scores: one member's score, the tenant's top K from the sharded index, a member's rank.

Eventually consistent throughout (the ``top`` index offers nothing else): a score read right
after an award may lag it by the index's propagation delay."""

from __future__ import annotations

from pynamodb.exceptions import DoesNotExist

from ddbmodels.core import capacity
from ddbmodels.patterns import leaderboard
from ddbmodels.scores.model import (
    DEFAULT_SHARDS,
    TOP_INDEX,
    AwardItem,
    ScoreItem,
    ScoresTableItem,
    award_key,
    score_key,
    username_of,
)


@capacity.access_pattern("leaderboard.score")
def score_get(*, tenant: str, username: str) -> ScoreItem | None:
    """GetItem the user's score item — 0.5 RCU. None before their first award."""
    try:
        item = ScoresTableItem.get(score_key(tenant, username))
    except DoesNotExist:
        return None
    return item if isinstance(item, ScoreItem) else None


def board(*, shards: int = DEFAULT_SHARDS) -> leaderboard.BoardIndex:
    """The ``top`` index of the scores table as a sharded board (the tenant is the board's name)."""
    return leaderboard.BoardIndex(
        table=str(ScoresTableItem.Meta.table_name),
        index=TOP_INDEX,
        shard_attr="tp",
        score_attr="sc",
        shards=shards,
        member_of=lambda entry: username_of(entry["pk"]["S"]),
    )


@capacity.access_pattern("leaderboard.top")
def top_scores(*, tenant: str, k: int, shards: int = DEFAULT_SHARDS) -> list[leaderboard.Ranked]:
    """Query ``top`` once per shard, Limit k, merged — N × 0.5 RCU for small tops (ties at the cut: + a Query)."""
    return leaderboard.top(board(shards=shards), tenant, k)


@capacity.access_pattern("leaderboard.rank")
def rank_above(*, tenant: str, score: int, shards: int = DEFAULT_SHARDS, cap: int = 1000) -> leaderboard.Above:
    """Query ``top`` SK > score, COUNT, per shard — 0.5 RCU per 4 KB of entries counted per shard (capped)."""
    return leaderboard.count_above(board(shards=shards), tenant, score, cap=cap)


@capacity.access_pattern("leaderboard.award_get")
def award_get(*, tenant: str, project_key: str, number: int) -> AwardItem | None:
    """GetItem the issue's award, consistent — 1 RCU. None when the issue's points are not given."""
    try:
        item = ScoresTableItem.get(award_key(tenant, project_key, number), consistent_read=True)
    except DoesNotExist:
        return None
    return item if isinstance(item, AwardItem) else None
