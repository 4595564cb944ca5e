"""The issues table's list indexes and their partition keys (``ddbmodels.issues.model`` declares them on its items).

Each list a page offers is one Query of one of these sparse indexes, whose partition key is the filter: a
project's status (by number or by update), the team's status, a person's status, a milestone's status. The
costs and why each projects what it does are in ``ddbmodels/issues/model.py``'s docstring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection, KeysOnlyProjection

if TYPE_CHECKING:
    from ddbmodels.issues.model import CollectionItem  # noqa: F401  (the items these indexes hold)


class ProjectsIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, KEYS_ONLY: one entry per project static item, by tenant then project key."""

    class Meta:
        index_name = "projects"
        projection = KeysOnlyProjection()

    tenant = UnicodeAttribute(hash_key=True, attr_name="gt")
    project_key = UnicodeAttribute(range_key=True, attr_name="gk")


# What a list row shows, projected into each list index (the kind lets PynamoDB build IssueItems; the version
# is for the staff page).
LIST_ATTRIBUTES = ["k", "t", "st", "pr", "as", "lb", "rp", "ca", "v"]


class ProjectStatusIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, INCLUDE: a project's live issues in one status, by number (and when each was last updated).

    The only list index whose sort key is not the update time, so it projects ``ua`` itself. It
    replaces ``project_status``, which did not (a row read from it had no update time, and PynamoDB
    filled in "now": every row of a project's default list said "0 minutes ago"). DynamoDB cannot
    change an index's projection, so the corrected one has a name of its own: ``create_all`` adds it
    beside the old one, DynamoDB fills it from the items (they carry its keys already: no reindex),
    and the old one is dropped once no process reads it (``CollectionItem.retired_indexes``).
    """

    class Meta:
        index_name = "project_status_number"
        projection = IncludeProjection([*LIST_ATTRIBUTES, "ua"])

    project_status = UnicodeAttribute(hash_key=True, attr_name="xs")
    number = NumberAttribute(range_key=True, attr_name="n")


class ProjectStatusUpdatedIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, INCLUDE: a project's live issues in one status, by last update."""

    class Meta:
        index_name = "project_status_updated"
        projection = IncludeProjection(LIST_ATTRIBUTES)

    project_status = UnicodeAttribute(hash_key=True, attr_name="xs")
    updated_at = UTCDateTimeAttribute(range_key=True, attr_name="ua")


class TeamStatusIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, INCLUDE: a team's live issues in one status across its projects, by last update."""

    class Meta:
        index_name = "team_status"
        projection = IncludeProjection(LIST_ATTRIBUTES)

    team_status = UnicodeAttribute(hash_key=True, attr_name="xt")
    updated_at = UTCDateTimeAttribute(range_key=True, attr_name="ua")


class AssigneeStatusIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, INCLUDE: one person's live issues in one status across the team's projects, by last update."""

    class Meta:
        index_name = "assignee_status"
        projection = IncludeProjection(LIST_ATTRIBUTES)

    assignee_status = UnicodeAttribute(hash_key=True, attr_name="xa")
    updated_at = UTCDateTimeAttribute(range_key=True, attr_name="ua")


class MilestoneStatusIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, INCLUDE: a project's live issues of one milestone in one status, by number.

    Only an issue with a milestone (``ms``, a ``ddbmodels.milestones`` id) carries its key ``xm`` =
    ``<tenant>#<PROJECT>#<milestone id>#<status>``: ``milestone:"v1.2"`` is one Query (0.5–1 RCU a
    page at any size). Its price: +1 WCU per write of such an issue, +2 a status change (a delete and a put).
    """

    class Meta:
        index_name = "milestone_status"
        projection = IncludeProjection([*LIST_ATTRIBUTES, "ua"])

    milestone_status = UnicodeAttribute(hash_key=True, attr_name="xm")
    number = NumberAttribute(range_key=True, attr_name="n")


# Indexes DynamoDB fills completely when added: every live issue carries their keys already (no ``reindex_issues``).
# ``milestone_status`` too: no issue had a milestone before the index existed.
SELF_FILLING_INDEXES = frozenset({"project_status_number", "milestone_status"})


def project_status_key(tenant: str, project_key: str, status: str) -> str:
    return f"{tenant}#{project_key}#{status}"


def team_status_key(tenant: str, status: str) -> str:
    return f"{tenant}#{status}"


def assignee_status_key(tenant: str, assignee: str, status: str) -> str:
    return f"{tenant}#{assignee}#{status}"


def milestone_status_key(tenant: str, project_key: str, milestone: str, status: str) -> str:
    return f"{tenant}#{project_key}#{milestone}#{status}"
