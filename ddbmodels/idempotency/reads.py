"""Reading idempotency records."""

from __future__ import annotations

from pynamodb.exceptions import DoesNotExist

from ddbmodels.idempotency.model import CreationRecord, record_key


def record_get(*, tenant: str, kind: str, key: str) -> CreationRecord | None:
    """GetItem, consistent — 1 RCU. The record of what the key created, None when it created nothing."""
    try:
        return CreationRecord.get(tenant, record_key(kind, key), consistent_read=True)
    except DoesNotExist:
        return None
