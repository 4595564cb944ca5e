"""The idempotency table: which item each idempotency key created, so a resubmission finds it.

    PK  k  = "<team>#<kind>#<idempotency key>"   (kind: "issue#WEB", "order", "comment#WEB#12", …):
             every record its own partition, so a team's burst of creates spreads over as many keys
        ts = "<team>#<shard 0..SHARDS-1>", the shard worked out from the key (``by_tenant`` below)
        r  = where the created item is (kind-specific, e.g. "12" or "<time key>#<number>")
        q  = the request that wrote it (a random token per call), so that call tells its own retried
             commit from an earlier submission of the same key
        h  = the API request's fingerprint (sha256 of method, path and canonical JSON body; absent for the
             pages' forms): the same key sent with another request is refused (``KeyReused``), not replayed
        x  = expiry, epoch seconds (a TTL attribute: DynamoDB deletes the record a day later, for free)

    GSI by_tenant (KEYS_ONLY)   PK ts, SK k — a team's records, for offboarding and ``tenant_has_data``:
             SHARDS Queries find them all. Write-sharded so that no index key takes more than
             1/SHARDS of a team's creates (``bench/load.py`` checks ≤ a quarter in a burst).

A record is written in the same TransactWriteItems as the item it names, conditioned on
``attribute_not_exists(k)``: the item and its record exist together or not at all, and the
second write with one key is cancelled on the record, which then names the first result. A
record is ≤ 1 KB: +2 WCU inside a transaction (prepare and commit) + 1 WCU for its index entry
(index entries are not doubled); its TTL deletion is free.

Before this layout (``LEGACY``, the table ``idempotency``) every record sat under PK = the team
(SK ``<kind>#<key>``): 73 % of ``idempotency`` writes on the hottest team's key in ``bench/load.py``.
``manage.py upgrade_search`` copies the unexpired old records here, and ``upgrade_search
--drop-old-tables`` (once no process of the previous version writes the old table) copies them once
more and drops it; until then a keyed create also looks its key up there (``legacy_record_get``:
1 RCU, and DescribeTable, free, once a minute per process, while the old table exists; nothing
after), so a form submitted before the upgrade and sent again after it is not created twice.

Exactly once, site-wide: every creating form carries a signed idempotency key made when it is
rendered (``tracker/forms/idempotency.py``). Issues, orders and comments write the key's record in
the same transaction as the item; the same key again is cancelled on the record (``KeyUsed``),
which names the first result — the page redirects to it and nothing new is written. Attachments
use the key as the attachment's id (no extra write); awards are keyed by their issue already. A
lost answer (the write happened, botocore retried it and was refused by our own item) is told
apart from a lost race by the random token the created item carries (``rq``): one consistent
GetItem, only on a refused or unanswered write.
"""

from __future__ import annotations

import zlib
from datetime import timedelta

from pynamodb.attributes import TTLAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import utcnow

RETENTION = timedelta(days=1)
SHARDS = 8
BY_TENANT_INDEX = "by_tenant"
LEGACY = "idempotency"  # the table of the old layout (PK t = team, SK k = "<kind>#<key>")


class ByTenantIndex(GlobalSecondaryIndex["CreationRecord"]):
    """KEYS_ONLY, write-sharded: a team's records, SHARDS Queries in all."""

    class Meta:
        index_name = BY_TENANT_INDEX
        projection = KeysOnlyProjection()

    shard = UnicodeAttribute(hash_key=True, attr_name="ts")
    key = UnicodeAttribute(range_key=True, attr_name="k")


@register("idempotency_keys")
class CreationRecord(Model):
    """One idempotency key of one tenant, and the item it created."""

    class Meta:
        table_name = "idempotency_keys"  # the base name: register() prefixes it

    key = UnicodeAttribute(hash_key=True, attr_name="k")
    shard = UnicodeAttribute(attr_name="ts")
    result = UnicodeAttribute(attr_name="r")
    request = UnicodeAttribute(attr_name="q")
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    expires = TTLAttribute(attr_name="x", null=True)
    fingerprint = UnicodeAttribute(attr_name="h", null=True)  # the API's request fingerprint (64 hex)

    by_tenant = ByTenantIndex()

    @property
    def tenant(self) -> str:
        return self.key.partition("#")[0]


def record_key(kind: str, key: str) -> str:
    """A record's ``<kind>#<idempotency key>`` (the old layout's sort key; the new key's tail)."""
    return f"{kind}#{key}"


def record_pk(tenant: str, kind: str, key: str) -> str:
    """The partition key of a record: ``<team>#<kind>#<idempotency key>``."""
    return f"{tenant}#{record_key(kind, key)}"


def shard_of(tenant: str, pk: str) -> str:
    """The ``by_tenant`` key of a record: ``<team>#<crc32 of its key mod SHARDS>`` (stable, spread)."""
    return f"{tenant}#{zlib.crc32(pk.encode()) % SHARDS}"


def shard_keys(tenant: str) -> list[str]:
    """Every ``by_tenant`` key a team's records may have."""
    return [f"{tenant}#{n}" for n in range(SHARDS)]


def new_record(
    *, tenant: str, kind: str, key: str, result: str, request: str, fingerprint: str | None = None
) -> CreationRecord:
    """The record to write beside the item it names (expires after ``RETENTION``); ``fingerprint``: the API's."""
    now = utcnow()
    pk = record_pk(tenant, kind, key)
    return CreationRecord(
        key=pk,
        shard=shard_of(tenant, pk),
        result=result,
        request=request,
        created_at=now,
        expires=now + RETENTION,
        fingerprint=fingerprint,
    )
