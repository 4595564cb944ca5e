"""Reading idempotency records (and, until ``manage.py upgrade_search`` has run, the old layout's)."""

from __future__ import annotations

import contextvars
import time
from typing import Any

from botocore.exceptions import ClientError
from pynamodb.exceptions import DoesNotExist

from ddbmodels.core import connection, tables
from ddbmodels.core.errors import KeyReused, KeyUsed
from ddbmodels.idempotency.model import LEGACY, CreationRecord, record_key, record_pk

LEGACY_RECHECK_S = 60.0  # how long a process trusts "the old table exists" (DescribeTable is free)
_legacy_seen: dict[str, tuple[float, bool]] = {}


def record_get(*, tenant: str, kind: str, key: str) -> CreationRecord | None:
    """GetItem, consistent — 1 RCU. The record of what the key created, None when it created nothing.

    While the old layout's table exists, a key not found here is looked up there too (+1 RCU).
    """
    try:
        return CreationRecord.get(record_pk(tenant, kind, key), consistent_read=True)
    except DoesNotExist:
        return legacy_record_get(tenant=tenant, kind=kind, key=key)


def legacy_exists() -> bool:
    """Whether the old layout's table still holds records here (DescribeTable, free; remembered LEGACY_RECHECK_S)."""
    table = connection.table_name(LEGACY)
    now = time.monotonic()
    seen = _legacy_seen.get(table)
    if seen is None or now - seen[0] > LEGACY_RECHECK_S:
        # free, once a minute a process: run outside every meter and access pattern (no capacity, not the call's)
        description = contextvars.Context().run(tables.describe_table, table)
        # a table of another key layout (an install that never had the old one) is not the old table
        old = description is not None and [k["AttributeName"] for k in description["KeySchema"]] == ["t", "k"]
        seen = (now, old)
        _legacy_seen[table] = seen
    return seen[1]


def legacy_forget() -> None:
    """Look the old table up again on the next call (after the upgrade removed it; tests)."""
    _legacy_seen.clear()


def legacy_record_get(*, tenant: str, kind: str, key: str) -> CreationRecord | None:
    """The old layout's record of the key (GetItem, consistent, 1 RCU), while its table exists; else None."""
    if not legacy_exists():
        return None
    try:
        answer: dict[str, Any] = connection.client().get_item(
            TableName=connection.table_name(LEGACY),
            Key={"t": {"S": tenant}, "k": {"S": record_key(kind, key)}},
            ConsistentRead=True,
            ReturnConsumedCapacity="TOTAL",
        )
    except ClientError as error:
        if tables.error_code(error) == "ResourceNotFoundException":
            legacy_forget()
            return None
        raise
    item = answer.get("Item")
    if item is None:
        return None
    return CreationRecord(
        key=record_pk(tenant, kind, key), shard="", result=item["r"]["S"], request=item.get("q", {}).get("S", "")
    )


def check_unused(*, tenant: str, kind: str, key: str) -> None:
    """Raise KeyUsed when the old layout's table holds the key (a form submitted before the upgrade).

    Nothing (and no request) once the old table is gone; 1 RCU before that.
    """
    if legacy_record_get(tenant=tenant, kind=kind, key=key) is not None:
        raise KeyUsed("this idempotency key already created an item (before the upgrade)")


def check_fingerprint(record: CreationRecord | None, fingerprint: str | None) -> None:
    """Raise KeyReused when a caller that fingerprints its requests (the API) sent the record's key with another
    request. Reads nothing: ``record`` is the one the replay read anyway. Without a fingerprint (the pages' forms,
    whose keys are made per rendered form) nothing is compared.
    """
    if fingerprint is not None and record is not None and record.fingerprint != fingerprint:
        raise KeyReused("this idempotency key was used with a different request", key=record.key)
