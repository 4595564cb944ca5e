"""The idempotency table: which item each idempotency key created, so a resubmission finds it.

    PK  t = the tenant (every key is a tenant's: an offboarding Query of one key finds them all)
    SK  k = "<kind>#<idempotency key>"   (kind: "issue", "order", …)
        r = where the created item is (kind-specific, e.g. "WEB#12" or "<customer>|<sort key>|<number>")
        q = the request that wrote it (a random token per call), so that call tells its own retried
            commit from an earlier submission of the same key
        x = expiry, epoch seconds (a TTL attribute: DynamoDB deletes the record a day later, for free)

A record is written in the same TransactWriteItems as the item it names, conditioned on
``attribute_not_exists(k)``: the item and its record exist together or not at all, and the
second write with one key is cancelled on the record, which then names the first result. A
record is ≤ 1 KB: +2 WCU inside a transaction (prepare and commit), its TTL deletion is free.
"""

from __future__ import annotations

from datetime import timedelta

from pynamodb.attributes import TTLAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import utcnow

RETENTION = timedelta(days=1)


@register("idempotency")
class CreationRecord(Model):
    """One idempotency key of one tenant, and the item it created."""

    class Meta:
        table_name = "idempotency"  # the base name: register() prefixes it

    tenant = UnicodeAttribute(hash_key=True, attr_name="t")
    key = UnicodeAttribute(range_key=True, attr_name="k")
    result = UnicodeAttribute(attr_name="r")
    request = UnicodeAttribute(attr_name="q")
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    expires = TTLAttribute(attr_name="x", null=True)


def record_key(kind: str, key: str) -> str:
    """The sort key of a record: ``<kind>#<idempotency key>``."""
    return f"{kind}#{key}"


def new_record(*, tenant: str, kind: str, key: str, result: str, request: str) -> CreationRecord:
    """The record to write beside the item it names (expires after ``RETENTION``)."""
    now = utcnow()
    return CreationRecord(
        tenant=tenant,
        key=record_key(kind, key),
        result=result,
        request=request,
        created_at=now,
        expires=now + RETENTION,
    )
