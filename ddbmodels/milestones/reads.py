"""Reading a project's milestones: one Query of its partition."""

from __future__ import annotations

from ddbmodels.core import capacity
from ddbmodels.milestones.model import MilestoneItem, partition_key

MILESTONES_MAX = 200  # a project's milestones, open and closed: a create past it is refused (writes.TooMany)
PAGE_LIMIT = MILESTONES_MAX + 20  # read past the cap: the few two creates at the same instant can add still show
CLAIM_PREFIX = "name#"  # name-claim items (writes.py) sort after every ULID: the list's key condition leaves them out


@capacity.access_pattern("milestones.list")
def milestone_list(*, tenant: str, project_key: str, consistent: bool = False) -> list[MilestoneItem]:
    """Query pk = ``<tenant>#<PROJECT>``, m < "name#" (not the name claims) — ≈ 0.5 RCU (a few hundred bytes a
    milestone; 200 of them ≈ 60 KB ≈ 8 RCU eventual), one request (Limit ``PAGE_LIMIT``: creates stop at
    ``MILESTONES_MAX``, so none is left out).

    Open (and closing) ones first (by due date, undated last), then closed ones (most recently closed first).
    """
    found = list(
        MilestoneItem.query(
            partition_key(tenant, project_key),
            MilestoneItem.milestone_id < CLAIM_PREFIX,
            consistent_read=consistent,
            limit=PAGE_LIMIT,
        )
    )
    opened = sorted(
        (m for m in found if m.state != "closed"), key=lambda m: (m.due is None, m.due or "", m.name.lower())
    )
    closed = sorted((m for m in found if m.state == "closed"), key=lambda m: m.closed_at or m.updated_at, reverse=True)
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
