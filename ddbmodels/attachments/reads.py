"""Reading attachments: one GetItem, an issue's collection, or the in-flight sparse index."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pynamodb.exceptions import DoesNotExist

from ddbmodels.attachments.model import (
    ATTACHMENT_ID_RE,
    IN_FLIGHT,
    INTERMEDIATE,
    VISIBLE,
    AttachmentItem,
    issue_key,
)
from ddbmodels.core import capacity
from ddbmodels.patterns import sparse_index


@capacity.access_pattern("attachments.get")
def attachment_get_by_key(pk: str, attachment_id: str, *, consistent: bool = False) -> AttachmentItem | None:
    """GetItem pk, id — 0.5 RCU (1 RCU consistent). None when missing."""
    try:
        return AttachmentItem.get(pk, attachment_id, consistent_read=consistent)
    except DoesNotExist:
        return None


@capacity.access_pattern("attachments.get")
def attachment_get(
    *, tenant: str, project_key: str, number: int, attachment_id: str, consistent: bool = False
) -> AttachmentItem | None:
    """GetItem the issue's attachment — 0.5 RCU (1 consistent). None when missing or not an id."""
    if not ATTACHMENT_ID_RE.match(attachment_id):
        return None
    return attachment_get_by_key(issue_key(tenant, project_key, number), attachment_id, consistent=consistent)


@capacity.access_pattern("attachments.list")
def attachment_list(
    *, tenant: str, project_key: str, number: int, states: Sequence[str] = VISIBLE, consistent: bool = False
) -> list[AttachmentItem]:
    """Query pk=issue, filter st IN states — 0.5 RCU per 4 KB read (filtered-out items are read too).

    Oldest first (ids sort by time). Detached and Failed items stay in the collection, so an
    issue with a long history reads them as well; at ~300 bytes each that is ~13 per 4 KB.
    """
    return list(
        AttachmentItem.query(
            issue_key(tenant, project_key, number),
            filter_condition=AttachmentItem.state.is_in(*states),
            consistent_read=consistent,
        )
    )


@capacity.access_pattern("attachments.in_flight")
def attachments_in_flight(
    *, before: datetime, states: Sequence[str] = INTERMEDIATE, limit: int | None = None
) -> list[AttachmentItem]:
    """Query in_flight per state × 4 shards, gs < before — 0.5 RCU per 4 KB per Query (8 Queries).

    Oldest first, read here (not lazily) so the Queries are metered under this access pattern;
    ``limit`` bounds a large backlog. The index is eventually consistent: act on what it returns
    conditionally.
    """
    return list(sparse_index.entered_before(IN_FLIGHT, states=states, before=before, limit=limit))
