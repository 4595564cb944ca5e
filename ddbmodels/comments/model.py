"""The comments table: one item collection per issue, its comments oldest first.

    PK  s  = "<tenant>#<PROJECT>#<number>"  the issue's stream (the same string as its events'
             stream and its attachments' key): the tenant is in every key
    SK  t  = "2026-11-22T10:15:30.123Z#<12 hex>": the time it was written (UTC, milliseconds,
             fixed width) and a random suffix, so keys are unique and sort oldest → newest
        a author (username), b body (markdown, ≤ 10,000 characters), ca/ua created/updated
        (aware UTC), v version (optimistic locking), rq the creating call's random token

No index. Every question asked of comments is "the comments of this issue", one Query of its
collection: a page of 20 is Query PK = issue, Limit 21 — 0.5 RCU per started 4 KB read (21
comments of ~300 bytes: 1 RCU; long ones cost what they weigh). Writes: add 1 WCU per started KB
(PutItem ``attribute_not_exists``); the site's add is a transaction with a ConditionCheck that the issue
is not deleted and the form's ``ddbmodels.idempotency`` record: 8 WCU for a short comment measured on
DynamoDB Local (``comment_add``; the same form again 2 RCU, nothing written), edit 1 WCU per KB
(UpdateItem), delete 1 WCU per KB — both conditioned on the version
(a stale one is ``ChangedSinceRead``). A lost answer is told from a lost race by ``rq``: one
consistent GetItem, on that path only. Measured on DynamoDB Local with comments of ~400 bytes:
a page of 20 (Limit 21) 1.5 RCU.

A deleted comment is really deleted (DeleteItem conditioned on the version), not flagged. A
comment takes no number from a sequence (the issues table must tombstone for that reason: a
comment need not), its text is gone from DynamoDB when its author deletes it, pages read only
live comments (a flag would be read and paid for on every page forever, or filtered out of
short pages), and the issue's history keeps the fact that it existed (a ``comment.deleted`` event).

A tenant leaving: the table has no tenant key or index, so offboarding enumerates the
collections from the tenant's issue numbers (as it does for attachments): one Query per issue
(``ddbmodels.comments.team.comment_pages``, its ``TEAM_DATA``). A sparse tenant index would cost +1 WCU on every
comment write to save reads that happen once in a tenant's life.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime

from pynamodb.attributes import UnicodeAttribute, UTCDateTimeAttribute, VersionAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.errors import InvalidInput
from ddbmodels.core.keys import issue_stream as issue_stream  # the comments' partition key is the issue's stream
from ddbmodels.core.keys import parse_time_key, time_key, utcnow

BODY_MAX = 10_000  # characters of markdown
PAGE_SIZE = 20
SORT_KEY_SUFFIX_HEX = 12  # 48 random bits after the millisecond
COMMENT_ID_RE = re.compile(r"(?P<digits>[0-9]{17})-(?P<suffix>[0-9a-f]{12})")
SORT_KEY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z#[0-9a-f]{12}")


def new_sort_key(when: datetime) -> str:
    """``2026-11-22T10:15:30.123Z#<12 hex>``: string order is time order, two writers never collide."""
    return f"{time_key(when)}#{secrets.token_hex(SORT_KEY_SUFFIX_HEX // 2)}"


def comment_id(key: str) -> str:
    """The sort key as a URL-safe id: ``2026-11-22T10:15:30.123Z#9f86d081a1b2`` → ``20261122101530123-9f86d081a1b2``."""
    when, _, suffix = key.partition("#")
    return f"{re.sub(r'[^0-9]', '', when)}-{suffix}"


def sort_key_of(comment_id: str) -> str:
    """The sort key a ``comment_id`` stands for; InvalidInput when it is not one."""
    match = COMMENT_ID_RE.fullmatch(comment_id)
    if match is None:
        raise InvalidInput("not a comment id", comment_id=comment_id)
    d = match["digits"]
    return f"{d[0:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}.{d[14:17]}Z#{match['suffix']}"


def sort_key_time(key: str) -> datetime:
    """The time at the start of a sort key (millisecond precision, aware UTC)."""
    return parse_time_key(key)


@register("comments")
class CommentItem(Model):
    """One comment of one issue."""

    class Meta:
        table_name = "comments"  # the base name: register() prefixes it

    stream = UnicodeAttribute(hash_key=True, attr_name="s")
    key = UnicodeAttribute(range_key=True, attr_name="t")
    author = UnicodeAttribute(attr_name="a")
    body = UnicodeAttribute(attr_name="b")
    version = VersionAttribute(attr_name="v")
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    updated_at = UTCDateTimeAttribute(attr_name="ua", default=utcnow)
    # The creating call's random token: a refused put that finds it here was that call's own.
    request = UnicodeAttribute(attr_name="rq", null=True)

    @property
    def edited(self) -> bool:
        """True once the comment was changed after it was written."""
        return int(self.version or 0) > 1

    @property
    def comment_id(self) -> str:
        """The id its URLs and anchors use (``comment_id`` of its sort key)."""
        return comment_id(self.key)
