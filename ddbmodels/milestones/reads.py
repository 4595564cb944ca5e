"""Reading a project's milestones: one Query of its partition."""

from __future__ import annotations

from ddbmodels.core import capacity
from ddbmodels.milestones.model import MilestoneItem, partition_key

PAGE_LIMIT = 200  # a project's milestones: tens; one Query page (1 MB) holds thousands


@capacity.access_pattern("milestones.list")
def milestone_list(*, tenant: str, project_key: str, consistent: bool = False) -> list[MilestoneItem]:
    """Query pk = ``<tenant>#<PROJECT>`` — ≈ 0.5 RCU (a few hundred bytes a milestone), one request.

    Open ones first (by due date, undated last), then closed ones (most recently closed first).
    """
    found = list(MilestoneItem.query(partition_key(tenant, project_key), consistent_read=consistent, limit=PAGE_LIMIT))
    opened = sorted((m for m in found if m.is_open), key=lambda m: (m.due is None, m.due or "", m.name.lower()))
    closed = sorted((m for m in found if not m.is_open), key=lambda m: m.closed_at or m.updated_at, reverse=True)
    return opened + closed


@capacity.access_pattern("milestones.get")
def milestone_get(*, tenant: str, project_key: str, milestone_id: str, consistent: bool = True) -> MilestoneItem | None:
    """GetItem — 1 RCU consistent (0.5 eventual)."""
    try:
        return MilestoneItem.get(partition_key(tenant, project_key), milestone_id, consistent_read=consistent)
    except MilestoneItem.DoesNotExist:
        return None


def by_name(milestones: list[MilestoneItem], name: str) -> MilestoneItem | None:
    """The milestone called ``name`` (case-insensitive) among ``milestones``."""
    wanted = name.strip().casefold()
    return next((m for m in milestones if m.name.casefold() == wanted), None)
