"""The leaderboard as views see it: the tenant's top 10 or 50 (cached in Redis) and your own standing."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from ddbmodels import scores
from ddbmodels.patterns.leaderboard import Ranked
from tracker.cache import cached

TOP_CHOICES = (10, 50)
DEFAULT_TOP = 10
# Counting who is above you stops here (bounded cost; beyond it the page says "more than").
RANK_COUNT_CAP = 1000


def leaderboard_cache_key(tenant: str, k: int) -> str:
    return f"ddb:leaderboard:{tenant}:{k}"


def leaderboard_cache_keys(tenant: str) -> list[str]:
    """Every cached top of the tenant: what a score change must drop."""
    return [leaderboard_cache_key(tenant, k) for k in TOP_CHOICES]


def leaderboard_top(*, tenant: str, k: int) -> list[Ranked]:
    """The tenant's top ``k`` (10 or 50), from Redis or N index Queries (N × 0.5 RCU), score desc then name."""
    if k not in TOP_CHOICES:
        raise ValueError(f"k must be one of {TOP_CHOICES}, got {k!r}")
    return cached(
        leaderboard_cache_key(tenant, k),
        settings.LEADERBOARD_CACHE_SECONDS,
        lambda: scores.top_scores(tenant=tenant, k=k, shards=settings.LEADERBOARD_SHARDS),
        dump=lambda rows: [[row.rank, row.member, row.score] for row in rows],
        restore=lambda raw: [Ranked(rank=rank, member=member, score=score) for rank, member, score in raw],
    )


@dataclass(frozen=True)
class Standing:
    """Your points and place; ``rank`` None before your first point, ``exact`` False past the count cap."""

    score: int
    rank: int | None
    exact: bool = True
    on_board: bool = False  # in the top list being shown


def leaderboard_standing(*, tenant: str, username: str, top: list[Ranked]) -> Standing:
    """Your score and rank: from ``top`` when you are on it (free), else GetItem + COUNT Queries.

    Off the list: GetItem of your score (0.5 RCU), then per shard a COUNT Query of the scores
    above yours (0.5 RCU per 4 KB of index entries counted, at least N × 0.5 RCU on AWS),
    counting at most ``RANK_COUNT_CAP`` members. Never cached: anybody's award moves it.
    """
    for row in top:
        if row.member == username:
            return Standing(score=row.score, rank=row.rank, on_board=True)
    item = scores.score_get(tenant=tenant, username=username)
    score = int(item.score or 0) if item is not None else 0
    if score <= 0:
        return Standing(score=score, rank=None)
    above = scores.rank_above(tenant=tenant, score=score, shards=settings.LEADERBOARD_SHARDS, cap=RANK_COUNT_CAP)
    return Standing(score=score, rank=above.rank, exact=above.exact)
