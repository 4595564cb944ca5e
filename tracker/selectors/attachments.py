"""Attachments as views see them: an issue's list, and one attachment of one issue (or 404)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.http import Http404

from ddbmodels import attachments
from ddbmodels.attachments import ATTACHED, AttachmentItem
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem

STAFF_IN_FLIGHT_LIMIT = 200


def attachment_list(*, issue: IssueItem) -> list[AttachmentItem]:
    """The issue's attachments that are attached or on their way (Query: ≈ 0.5 RCU per 4 KB), oldest first."""
    return attachments.attachment_list(tenant=issue.tenant, project_key=issue.project_key, number=int(issue.number))


def attachment_get_or_404(*, issue: IssueItem, attachment_id: str, consistent: bool = False) -> AttachmentItem:
    """The issue's attachment in any state, or Http404 (missing, malformed id, another issue's).

    The key is built from the issue the URL names, and that issue was already resolved within the
    user's tenant: another tenant's attachment cannot be addressed, it is simply not found.
    """
    item = attachments.attachment_get(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        attachment_id=attachment_id,
        consistent=consistent,
    )
    if item is None:
        raise Http404("No such attachment.")
    return item


def attachment_access(*, issue: IssueItem, attachment_id: str) -> AttachmentItem:
    """The issue's attachment while it is Attached, or Http404 (also when in flight, detached or failed)."""
    item = attachment_get_or_404(issue=issue, attachment_id=attachment_id)
    if item.state != ATTACHED:
        raise Http404("No such attachment.")
    return item


# ------------------------------------------------------------------- staff: every tenant's attachments


@dataclass(frozen=True)
class InFlight:
    """An attachment in Attaching or Detaching, where it belongs, and how long it has been there."""

    item: AttachmentItem
    tenant: str
    project_key: str
    number: int
    age: timedelta
    stuck: bool  # older than ATTACHMENT_STUCK_SECONDS: the reconcile job will complete or roll it back


def staff_attachments_in_flight(
    *, tenant: str | None = None, limit: int = STAFF_IN_FLIGHT_LIMIT, now: datetime | None = None
) -> list[InFlight]:
    """Every tenant's in-flight attachments, oldest first, from the sparse ``in_flight`` index.

    2 states × 4 shards = 8 Queries, each 0.5 RCU per 4 KB of entries read (4 RCU when the index
    is nearly empty, as it should be: it holds only the attachments caught mid-transition).
    ``tenant`` keeps that tenant's rows only; the index spans every tenant, so the read is the same.
    At most ``limit`` rows (the Queries stop reading once they are found).
    """
    now = now or utcnow()
    stuck_after = timedelta(seconds=settings.ATTACHMENT_STUCK_SECONDS)
    # A day ahead: an entry written by a machine whose clock runs ahead must not be hidden.
    items = attachments.attachments_in_flight(before=now + timedelta(days=1))
    prefix = f"{tenant}#" if tenant else ""
    rows = []
    for item in islice((i for i in items if i.pk.startswith(prefix)), limit):
        owner, project_key, number = item.pk.split("#")
        age = max(now - (item.in_flight_since or now), timedelta(0))
        rows.append(InFlight(item, owner, project_key, int(number), age, age >= stuck_after))
    return rows
