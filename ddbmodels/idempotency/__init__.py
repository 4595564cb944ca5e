"""The idempotency table: idempotency key → the item it created (issues, orders, comments), or the first answer
given under it (``answers``: the API's POSTs that create nothing keyed), kept a day."""

from ddbmodels.idempotency.answers import ANSWER_MAX, Answer, answer_get, answer_put
from ddbmodels.idempotency.legacy import CopiedPage, legacy_copy
from ddbmodels.idempotency.model import (
    BY_TENANT_INDEX,
    LEGACY,
    RETENTION,
    SHARDS,
    CreationRecord,
    new_record,
    record_key,
    record_pk,
    shard_keys,
    shard_of,
)
from ddbmodels.idempotency.reads import (
    check_fingerprint,
    check_unused,
    legacy_exists,
    legacy_forget,
    legacy_record_get,
    record_get,
)
from ddbmodels.idempotency.team import TEAM_DATA

__all__ = [
    "ANSWER_MAX",
    "BY_TENANT_INDEX",
    "LEGACY",
    "RETENTION",
    "SHARDS",
    "TEAM_DATA",
    "Answer",
    "CopiedPage",
    "CreationRecord",
    "answer_get",
    "answer_put",
    "check_fingerprint",
    "check_unused",
    "legacy_copy",
    "legacy_exists",
    "legacy_forget",
    "legacy_record_get",
    "new_record",
    "record_get",
    "record_key",
    "record_pk",
    "shard_keys",
    "shard_of",
]
