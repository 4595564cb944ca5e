"""The idempotency table: idempotency key → the item it created (issues, orders, comments), kept a day."""

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
from ddbmodels.idempotency.reads import check_unused, legacy_exists, legacy_forget, legacy_record_get, record_get
from ddbmodels.idempotency.team import TEAM_DATA

__all__ = [
    "BY_TENANT_INDEX",
    "LEGACY",
    "RETENTION",
    "SHARDS",
    "TEAM_DATA",
    "CopiedPage",
    "CreationRecord",
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
