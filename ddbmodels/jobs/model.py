"""The jobs table: one item per maintenance job, holding its fencing token and checkpoint.

A Redis lock (with an expiry) keeps two runs of a job from overlapping in the common case; it
cannot protect against a run that stalls past its lock's expiry and then wakes up while a newer
run works. So each run also takes a *fencing token* here — an atomic ``ADD 1`` on the job's
item — and every destructive step first makes a write conditioned on the token still being its
own (``fence_check``, 1 WCU). A stale run's check fails and it stops before doing harm (Kleppmann,
"How to do distributed locking"). Resumable jobs keep their checkpoint on the same item, written
under the same condition.

    item        PK j = the job's name; tk token (ADD 1 per run), ow owner, sa started, fa fenced,
                cp checkpoint; tn = the team, only on a team's own job items
    GSI by_tenant   PK tn, no sort key, KEYS_ONLY — sparse: only items written with a team

Most jobs belong to nobody (``distinct_keys:<table>``, ``rotate_event_tables``, and
``offboard_tenant:<slug>``, which must outlive the team it deletes). Some belong to one team and
hold its words: a web import's record ``import_upload:<tenant>:<id>`` (project, file name, the
owner's username), its double-submit claim ``import_claim:<tenant>:<id>`` and the bulk load's
checkpoint ``import_issues:<tenant>:<fingerprint>``. Those are written with ``tn`` (the first
``fence_acquire`` that creates them is given the team; later writes never remove it), so
offboarding finds them with one Query of ``by_tenant`` instead of a Scan, exports them (a
consistent BatchGetItem of the keys) and deletes them — a team re-created later under the same
slug then finds no stale "already imported" checkpoint. Items written before ``tn`` existed stay
untagged (and invisible to offboarding) until a ``fence_acquire`` with the team touches them.

Cost of the index: an entry is the item's keys (≈ 60–80 bytes); it is written once, when the
item gets ``tn``, and deleted with the item — 1 WCU each. Checkpoint and fence writes change
neither ``tn`` nor a projected attribute, so they write no index entry (why KEYS_ONLY and not
ALL: with ALL every checkpoint save, one per 25 imported items, would cost a second WCU). Finding
a team's job items: Query, 0.5 RCU per 4 KB of keys (a few hundred imports per 0.5 RCU).
"""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.errors import DomainError

BY_TENANT_INDEX = "by_tenant"


class FencedOut(DomainError, code="fenced_out"):
    """A newer run of this job holds the fencing token: this run must stop."""


class ByTenantIndex(GlobalSecondaryIndex["JobItem"]):
    """Sparse, KEYS_ONLY, hash only: a team's own job items (for offboarding)."""

    class Meta:
        index_name = BY_TENANT_INDEX
        projection = KeysOnlyProjection()

    tenant = UnicodeAttribute(hash_key=True, attr_name="tn")


@register("jobs")
class JobItem(Model):
    """One maintenance job's coordination state."""

    class Meta:
        table_name = "jobs"

    job = UnicodeAttribute(hash_key=True, attr_name="j")
    token = NumberAttribute(attr_name="tk", default=0)
    owner = UnicodeAttribute(attr_name="ow", null=True)
    started_at = UTCDateTimeAttribute(attr_name="sa", null=True)
    fenced_at = UTCDateTimeAttribute(attr_name="fa", null=True)
    checkpoint = UnicodeAttribute(attr_name="cp", null=True)
    tenant = UnicodeAttribute(attr_name="tn", null=True)  # only on a team's own job items

    by_tenant = ByTenantIndex()
