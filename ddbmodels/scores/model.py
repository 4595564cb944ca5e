"""The scores table: one score item per (tenant, user), one award item per resolved issue.

    PK  pk = "<tenant>#user#<username>"               a member's score    (kind "score")
         pk = "<tenant>#issue#<PROJECT>#<number>"      an issue's award    (kind "award")

A score item holds the points (``sc``, changed only with an atomic ``ADD``) and the key of the
``top`` index: ``tp = "<tenant>#<n>"``, where n = crc32(username) % N + 1 is the user's write
shard (a calculated suffix). Leaderboards are read from that index: N
Queries, score descending, ``Limit K``, merged (``patterns.leaderboard``). One constant key per
tenant would put every score change of a tenant on one index partition; N keys spread them.
Award items carry no ``tp``, so the index is sparse: it holds exactly the score items.

An award item is the proof that an issue's points were given: created in the same
TransactWriteItems as the score's ``ADD`` and conditioned on ``attribute_not_exists``, so a
retried or duplicated award counts once; it records who got how many points, so a revoke takes
back exactly that, even after the issue's assignee or priority changed (``writes.revoke_issue``).

Cost: an award is one TransactWriteItems (issue ConditionCheck, award Put ``attribute_not_exists``,
score ``ADD``): 6 WCU + the index move; a retried award counts once. Top K: N Queries of ``top``,
``ScanIndexForward=False, Limit K+1``, merged: 0.5 RCU per shard.
"""

from __future__ import annotations

import re

from pynamodb.attributes import (
    DiscriminatorAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import TENANT_SLUG_RE, utcnow

# Points for a resolved issue, by priority: urgent work is worth more than two low ones.
POINTS: dict[str, int] = {"low": 1, "medium": 2, "high": 3, "urgent": 5}
DEFAULT_SHARDS = 4
TOP_INDEX = "top"
USER_MARK = "#user#"
ISSUE_MARK = "#issue#"
# Django usernames are letters, digits and @.+-_ (150 at most); '#' would break the key layout.
USERNAME_RE = re.compile(r"^[^#\s]{1,150}$")


def points_for(priority: str) -> int:
    """Points an issue of ``priority`` is worth; ValueError for an unknown priority."""
    if priority not in POINTS:
        raise ValueError(f"unknown priority {priority!r}")
    return POINTS[priority]


def _check(tenant: str, username: str | None = None) -> None:
    if not TENANT_SLUG_RE.match(tenant):
        raise ValueError(f"invalid tenant {tenant!r}")
    if username is not None and not USERNAME_RE.match(username):
        raise ValueError(f"invalid username {username!r}")


def score_key(tenant: str, username: str) -> str:
    """Partition key of a member's score item."""
    _check(tenant, username)
    return f"{tenant}{USER_MARK}{username}"


def username_of(key: str) -> str:
    """The username in a score item's key (what a KEYS_ONLY ``top`` entry carries)."""
    return key.partition(USER_MARK)[2]


def award_key(tenant: str, project_key: str, number: int) -> str:
    """Partition key of an issue's award item."""
    _check(tenant)
    return f"{tenant}{ISSUE_MARK}{project_key}#{int(number)}"


class TopIndex(GlobalSecondaryIndex["ScoreItem"]):
    """Sparse, KEYS_ONLY: score items by tenant-and-shard, then score (N)."""

    class Meta:
        index_name = TOP_INDEX
        projection = KeysOnlyProjection()

    shard_key = UnicodeAttribute(hash_key=True, attr_name="tp")
    score = NumberAttribute(range_key=True, attr_name="sc")


@register("scores")
class ScoresTableItem(Model):
    """Any item of the scores table; ``kind`` says which subclass it deserializes to."""

    class Meta:
        table_name = "scores"  # the base name: register() prefixes it

    pk = UnicodeAttribute(hash_key=True, attr_name="pk")
    kind = DiscriminatorAttribute(attr_name="k")
    tenant = UnicodeAttribute(attr_name="t")
    username = UnicodeAttribute(attr_name="u")
    updated_at = UTCDateTimeAttribute(attr_name="ua", default=utcnow)
    # The top index's keys: set on score items only.
    shard_key = UnicodeAttribute(attr_name="tp", null=True)
    score = NumberAttribute(attr_name="sc", null=True)

    top_index = TopIndex()


class ScoreItem(ScoresTableItem, discriminator="score"):
    """A member's points in a tenant, and how many awards made them."""

    awards = NumberAttribute(attr_name="n", default=0)

    @property
    def shard(self) -> int:
        return int(str(self.shard_key).rpartition("#")[2])


class AwardItem(ScoresTableItem, discriminator="award"):
    """The points one resolved issue gave its assignee (exists while they count)."""

    points = NumberAttribute(attr_name="pts")
    reference = UnicodeAttribute(attr_name="ref")  # WEB-42
    priority = UnicodeAttribute(attr_name="pr")
    awarded_at = UTCDateTimeAttribute(attr_name="at", default=utcnow)
    # The awarding call's random token: an award refused on this item was that call's own commit.
    request = UnicodeAttribute(attr_name="rq", null=True)
