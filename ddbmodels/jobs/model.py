"""The jobs table: one item per maintenance job, holding its fencing token and checkpoint.

A Redis lock (with an expiry) keeps two runs of a job from overlapping in the common case; it
cannot protect against a run that stalls past its lock's expiry and then wakes up while a newer
run works. So each run also takes a *fencing token* here — an atomic ``ADD 1`` on the job's
item — and every destructive step first makes a write conditioned on the token still being its
own (``fence_check``). A stale run's check fails and it stops before doing harm (Kleppmann,
"How to do distributed locking"). Resumable jobs keep their checkpoint on the same item, written
under the same condition.
"""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.errors import DomainError


class FencedOut(DomainError, code="fenced_out"):
    """A newer run of this job holds the fencing token: this run must stop."""


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
