"""The issues table: one item collection per project, the project's static item at sort key 0.

    PK  pk = "<tenant>#<PROJECT>"   (tenant slug and project key: the tenant is in every key)
    SK  n  = 0 for the project's static item, 1, 2, 3 … for its issues

Projects feed ``projects`` — a sparse KEYS_ONLY global index. Only the static item carries its
key attributes (``gt`` = tenant, ``gk`` = project key), so the index holds exactly one entry per
project: listing a tenant's projects is one Query of it, and enumerating every collection of
the table (distinct keys, the ``gsi`` method) is a Scan of an index that is a few bytes per project.
"""

from __future__ import annotations

import re
from typing import Any

from pynamodb.attributes import (
    DiscriminatorAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import utcnow

PROJECT_KEY_RE = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")
PROJECT_SK = 0

STATUSES = ("open", "in_progress", "resolved", "closed")
PRIORITIES = ("low", "medium", "high", "urgent")
# Which status may follow which. Anything else is an InvalidTransition.
TRANSITIONS: dict[str, frozenset[str]] = {
    "open": frozenset({"in_progress", "resolved", "closed"}),
    "in_progress": frozenset({"open", "resolved", "closed"}),
    "resolved": frozenset({"open", "closed"}),
    "closed": frozenset({"open"}),
}
TITLE_MAX = 200
DESCRIPTION_MAX = 10_000
LABELS_MAX = 10
LABEL_MAX = 30


def collection_key(tenant: str, project_key: str) -> str:
    """Partition key of a project's collection."""
    return f"{tenant}#{project_key}"


def split_collection_key(pk: str) -> tuple[str, str]:
    tenant, _, project_key = pk.partition("#")
    return tenant, project_key


class ProjectsIndex(GlobalSecondaryIndex["CollectionItem"]):
    """Sparse, KEYS_ONLY: one entry per project static item, by tenant then project key."""

    class Meta:
        index_name = "projects"
        projection = KeysOnlyProjection()

    tenant = UnicodeAttribute(hash_key=True, attr_name="gt")
    project_key = UnicodeAttribute(range_key=True, attr_name="gk")


@register("issues")
class CollectionItem(Model):
    """Any item of the issues table; ``kind`` says which subclass it deserializes to."""

    class Meta:
        table_name = "issues"  # the base name: register() prefixes it

    pk = UnicodeAttribute(hash_key=True, attr_name="pk")
    number = NumberAttribute(range_key=True, attr_name="n")
    kind = DiscriminatorAttribute(attr_name="k")
    version = VersionAttribute(attr_name="v")
    created_at = UTCDateTimeAttribute(attr_name="ca", default=utcnow)
    updated_at = UTCDateTimeAttribute(attr_name="ua", default=utcnow)
    # Sparse index keys: set on project static items only.
    gsi_tenant = UnicodeAttribute(attr_name="gt", null=True)
    gsi_project_key = UnicodeAttribute(attr_name="gk", null=True)

    projects_index = ProjectsIndex()

    @property
    def tenant(self) -> str:
        return split_collection_key(self.pk)[0]

    @property
    def project_key(self) -> str:
        return split_collection_key(self.pk)[1]


class ProjectItem(CollectionItem, discriminator="project"):
    """A project's static item (SK 0): its metadata, and the sparse-index entry."""

    name = UnicodeAttribute(attr_name="nm")
    description = UnicodeAttribute(attr_name="ds", null=True)
    created_by = UnicodeAttribute(attr_name="cb")
    # Live issues by status, refreshed by a job after writes (``projects.project_counts_refresh``).
    issue_counts = MapAttribute(attr_name="ic", null=True)  # type: ignore[var-annotated]
    counted_at = UTCDateTimeAttribute(attr_name="cn", null=True)

    def live_count(self, status: str | None = None) -> int:
        counts = self.issue_counts.as_dict() if self.issue_counts is not None else {}
        if status is None:
            return int(sum(counts.values()))
        return int(counts.get(status, 0))


class IssueItem(CollectionItem, discriminator="issue"):
    """One issue. Never deleted: a tombstone keeps its number taken."""

    title = UnicodeAttribute(attr_name="t")
    description = UnicodeAttribute(attr_name="ds", null=True)
    status = UnicodeAttribute(attr_name="st", default="open")
    priority = UnicodeAttribute(attr_name="pr", default="medium")
    assignee = UnicodeAttribute(attr_name="as", null=True)
    reporter = UnicodeAttribute(attr_name="rp")
    labels = UnicodeSetAttribute(attr_name="lb", null=True)
    deleted_at = UTCDateTimeAttribute(attr_name="da", null=True)
    deleted_by = UnicodeAttribute(attr_name="db", null=True)
    # The creating call's random token: a refused put that finds it here was that call's own.
    request = UnicodeAttribute(attr_name="rq", null=True)

    @property
    def reference(self) -> str:
        """Human reference, e.g. ``WEB-42``."""
        return f"{self.project_key}-{int(self.number)}"

    @property
    def is_tombstone(self) -> bool:
        return self.deleted_at is not None


def project_dump(item: ProjectItem) -> dict[str, Any]:
    """A project's static item as plain data (DynamoDB JSON) for a cache; ``project_load`` reads it back."""
    return item.to_dynamodb_dict()


def project_load(raw: dict[str, Any]) -> ProjectItem | None:
    """The project ``project_dump`` wrote; None for anything else."""
    item = CollectionItem.from_raw_data(raw)
    return item if isinstance(item, ProjectItem) else None
