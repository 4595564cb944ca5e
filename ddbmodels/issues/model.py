"""The issues table: one item collection per project, the project's static item at sort key 0.

    PK  pk = "<tenant>#<PROJECT>"   (tenant slug and project key: the tenant is in every key)
    SK  n  = 0 for the project's static item, 1, 2, 3 … for its issues

Projects feed ``projects`` — a sparse KEYS_ONLY global index. Only the static item carries its
key attributes (``gt`` = tenant, ``gk`` = project key), so the index holds exactly one entry per
project: listing a tenant's projects is one Query of it, and enumerating every collection of
the table (distinct keys, the ``gsi`` method) is a Scan of an index that is a few bytes per project.

Issue lists — four sparse global indexes, so every list a page offers is one Query of an index
whose partition key *is* the filter (the design of The DynamoDB Book's GitHub model: the status
goes into the key). Only a live issue carries their key attributes; a tombstone removes them, a
status change moves the issue from one partition to another, an unassigned issue has no ``xa``:

    index                    PK                                 SK            the list
    project_status_number    xs = "<tenant>#<PROJECT>#<status>" n  (number)   a project's issues in a status
    project_status_updated   xs                                 ua (updated)  … by last update
    team_status              xt = "<tenant>#<status>"           ua            the team's issues in a status
    assignee_status          xa = "<tenant>#<user>#<status>"    ua            one person's ("My issues")

Projection INCLUDE of what a list row shows (title, status, priority, assignee, labels, reporter,
created/updated, the kind; the update time is the sort key of three of them, projected by the
fourth): ≈ 150–250 bytes an entry, so a page of 25 rows is one Query of
≈ 0.5–1 RCU (eventually consistent) however big the project or team — closed issues sit in
their own partitions and are never read by the open list. The description (up to 10 KB) is not
projected: list pages never pay for it.

Write cost: every index entry is written like an item of its own (1 WCU per started KB of the
projected entry). Creating an issue writes 3 entries (4 when assigned) beside the item; a status
change moves each entry (a delete and a put: 2 WCU an index); an edit that touches no key
attribute rewrites the projected attributes (1 WCU an index). Size: ≈ 4 × 200 bytes per live
issue on top of the item. The ``xt`` partition of a big team takes all of that team's writes:
fine up to DynamoDB's 1,000 WCU per partition (far beyond any team's issue edits).

Labels are lists of their own (an issue has several; an index key holds one value): the ``labels``
table (``ddbmodels.labels``), keyed per label, written in a create's transaction and right after
an edit's conditional update (guarded by the issue version). Words are the search engine's
(``tracker/search``), not DynamoDB's.

Measured by ``bench/issue_lists.py`` on projects of 1,000, 10,000 and 100,000 issues: every list
(these four and a label's) is one request at exactly its floor, 0.5–1 RCU a page at every size,
where the old Query of the collection filtered on status read 38.5, 77 and 90 RCU (39–90
requests) for the same open page.

Access patterns and their cost (DynamoDB's; ``bench/`` measures them on DynamoDB Local):

    next issue number          Query SK desc Limit 1 (consistent) + PutItem ``attribute_not_exists(n)``
                               (``patterns.sequences``): 1 RCU + 1 WCU per KB + 3–4 list-index entries;
                               each lost race + 2 RCU (the next Query; a GetItem: was the refused
                               write our own?) and a refused write
      … with labels            the same as TransactWriteItems [issue, its ``labels`` entries]: 2 WCU an
                               item ≤ 1 KB (2 labels: 6 WCU) + the index entries; a label new to the
                               team registers first (+ 0.5 RCU + 1 WCU). DynamoDB Local counts a
                               transaction's index entries twice and equal entries once (bench/README.md)
      … from a web form        the idempotency record joins the transaction: + 2 WCU + 1 WCU for its
                               ``by_tenant`` entry (Local: + 4)
    edit / status / tombstone  UpdateItem conditioned on the version (and the status it leaves), naming
                               only the fields that change (an edit that changes nothing writes
                               nothing); then each label entry that changes, guarded by the version:
                               1 WCU per KB + 1–2 WCU a list index + 1 WCU an entry put or deleted
                               (a status change of an issue with 2 labels: 13 WCU, was 20)
    a list page                Query of a list index, Limit 26: 0.5–1 RCU, 1 request (``lists``)
    one person's issues in     Query ``assignee_status`` + FilterExpression on the project: reads that
      one project              person's issues in the status (tens)
    a tenant's projects        Query ``projects`` + BatchGetItem of static items: 0.5 + 0.5 RCU a project
    every project (all teams)  Scan ``projects``: 0.5 RCU per 4 KB of keys
    staff: a project's issues  Query SK > 0 desc, tombstones filtered out: ≈ 0.5 RCU per 4 KB read
    bulk load                  BatchWriteItem of whole issues and entries (``bulk.issues_put_many``):
                               1 WCU per KB per item and entry
    repair label entries       ``issue_labels_reconcile``: GetItem (consistent) + BatchGetItem of every
                               key its entries may have, then guarded puts/deletes of what differs:
                               1 RCU + 1 RCU per label × 4 statuses; 1 WCU per entry fixed
    upgrade an install         ``create_all`` adds missing indexes; ``reindex_issues`` gives old issues
                               their keys and entries; ``upgrade_search`` moves to ``labels``,
                               ``idempotency_keys`` and the search engine: a Query per project + 1 WCU
                               per fixed issue and entry
    retire an index            listed in ``CollectionItem.retired_indexes``, dropped by ``manage.py
                               ddb_create_tables --drop-retired-indexes`` once no process of the previous
                               version reads it (UpdateTable, free; until then every write pays its entry)

Issues are never deleted: the sequence reads the largest sort key, so a deleted top issue's number
would be handed out again; they become tombstones.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pynamodb.attributes import (
    DiscriminatorAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

from ddbmodels.core.connection import register
from ddbmodels.core.keys import utcnow
from ddbmodels.issues.indexes import (
    AssigneeStatusIndex,
    MilestoneStatusIndex,
    ProjectsIndex,
    ProjectStatusIndex,
    ProjectStatusUpdatedIndex,
    TeamStatusIndex,
    assignee_status_key,
    milestone_status_key,
    project_status_key,
    team_status_key,
)
from ddbmodels.labels import IssueRow, issue_of

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
LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")


def one_line(title: str) -> str:
    """A title as stored: each run of line breaks one space (e-mail subjects, list rows, CSV cells hold one line)."""
    return LINE_BREAKS.sub(" ", title)


DESCRIPTION_MAX = 10_000
LABELS_MAX = 10
LABEL_MAX = 30


def collection_key(tenant: str, project_key: str) -> str:
    """Partition key of a project's collection."""
    return f"{tenant}#{project_key}"


def split_collection_key(pk: str) -> tuple[str, str]:
    tenant, _, project_key = pk.partition("#")
    return tenant, project_key


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

    # Sparse list-index keys: set on live issues only (see the module docstring).
    list_project_status = UnicodeAttribute(attr_name="xs", null=True)
    list_team_status = UnicodeAttribute(attr_name="xt", null=True)
    list_assignee_status = UnicodeAttribute(attr_name="xa", null=True)
    list_milestone_status = UnicodeAttribute(attr_name="xm", null=True)

    # Indexes an earlier version declared and this one no longer reads: ``tables.create_all(drop_retired=True)``
    # (``manage.py ddb_create_tables --drop-retired-indexes``) deletes them once no process of that version serves.
    retired_indexes: ClassVar[tuple[str, ...]] = ("project_status",)

    projects_index = ProjectsIndex()
    project_status_index = ProjectStatusIndex()
    project_status_updated_index = ProjectStatusUpdatedIndex()
    team_status_index = TeamStatusIndex()
    assignee_status_index = AssigneeStatusIndex()
    milestone_status_index = MilestoneStatusIndex()

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
    # Set while an import writes the project's issues (the import's job name): BatchWriteItem puts
    # are unconditional, so a number taken meanwhile would be overwritten; new issues wait for it.
    importing = UnicodeAttribute(attr_name="im", null=True)

    def live_count(self, status: str | None = None) -> int:
        counts = self.issue_counts.as_dict() if self.issue_counts is not None else {}
        if status is None:
            return int(sum(counts.values()))
        return int(counts.get(status, 0))


class ImportOrigin(MapAttribute):  # type: ignore[type-arg]
    """Where an imported issue came from, written with it by the import (≈ 60–150 bytes, no extra write).

    ``source`` is the export's format (github, jira, csv), ``ref`` the issue's name there
    (``octo/repo#12``, ``WEB-12``), ``url`` its page there, ``by`` who imported it, ``at`` when.
    The issue's ``created_at`` and ``reporter`` are the export's own.
    """

    source = UnicodeAttribute(attr_name="s")
    ref = UnicodeAttribute(attr_name="r", null=True)
    url = UnicodeAttribute(attr_name="u", null=True)
    by = UnicodeAttribute(attr_name="b")
    at = UTCDateTimeAttribute(attr_name="a")


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
    # Set by an import only (``tracker.imports.load``): the issue's history starts with it.
    imported = ImportOrigin(attr_name="io", null=True)
    # The last ``changes.issue_change`` form token applied to the issue (not projected): a resubmitted form that
    # finds its own token here was applied already and changes nothing twice.
    bulk_token = UnicodeAttribute(attr_name="bk", null=True)
    # What that form changed, written with ``bk`` (not projected): when, the writing call, the fields before and after
    # (compact JSON, ``changes.change_record``). Its lost answer and its replays record the change from it.
    bulk_change = UnicodeAttribute(attr_name="bc", null=True)
    # The token of the call that last edited the issue (``writes.update_with_entries``, not projected): a refused
    # resend of that call's own update (its answer lost) that finds it here was that call's success.
    write_fence = UnicodeAttribute(attr_name="wf", null=True)
    # The milestone's id (``ddbmodels.milestones``), in the project's milestones; gives the key of ``milestone_status``.
    milestone = UnicodeAttribute(attr_name="ms", null=True)

    @property
    def reference(self) -> str:
        """Human reference, e.g. ``WEB-42``."""
        return f"{self.project_key}-{int(self.number)}"

    @property
    def is_tombstone(self) -> bool:
        return self.deleted_at is not None

    def list_keys(self) -> dict[str, str | None]:
        """The list-index keys this issue should carry now, by attribute name (None: not in that index)."""
        if self.is_tombstone:
            return {
                "list_project_status": None,
                "list_team_status": None,
                "list_assignee_status": None,
                "list_milestone_status": None,
            }
        tenant, project_key = split_collection_key(self.pk)
        milestone = getattr(self, "milestone", None)
        return {
            "list_project_status": project_status_key(tenant, project_key, self.status),
            "list_team_status": team_status_key(tenant, self.status),
            "list_assignee_status": assignee_status_key(tenant, self.assignee, self.status) if self.assignee else None,
            "list_milestone_status": (
                milestone_status_key(tenant, project_key, milestone, self.status) if milestone else None
            ),
        }

    def set_list_keys(self) -> None:
        """Set the list-index key attributes from status, assignee and tombstone (before a put)."""
        for name, value in self.list_keys().items():
            setattr(self, name, value)


def project_dump(item: ProjectItem) -> dict[str, Any]:
    """A project's static item as plain data (DynamoDB JSON) for a cache; ``project_load`` reads it back."""
    return item.to_dynamodb_dict()


def project_load(raw: dict[str, Any]) -> ProjectItem | None:
    """The project ``project_dump`` wrote; None for anything else."""
    item = CollectionItem.from_raw_data(raw)
    return item if isinstance(item, ProjectItem) else None


# What a label entry copies of its issue (the list row): LIST_ATTRIBUTES without the kind, with the update time.
ROW_ATTRIBUTES = ("t", "st", "pr", "as", "lb", "rp", "ca", "ua")


def issue_row(issue: IssueItem) -> IssueRow:
    """The issue as its label entries copy it (with its version: the entries' write guard)."""
    raw = issue.serialize(null_check=False)
    return IssueRow(
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        status=issue.status,
        title=issue.title,
        labels=frozenset(issue.labels or ()),
        row={name: raw[name] for name in ROW_ATTRIBUTES if name in raw},
        version=int(issue.version or 0),
    )


def issue_from_entry(tenant: str, entry: dict[str, Any]) -> IssueItem:
    """The list row a label entry copies, as an IssueItem (without description; version the entry's)."""
    project_key, number = issue_of(entry["s"]["S"])
    raw = {name: entry[name] for name in ROW_ATTRIBUTES if name in entry}
    raw.update(pk={"S": collection_key(tenant, project_key)}, n={"N": str(number)}, k={"S": "issue"})
    if "v" in entry:
        raw["v"] = entry["v"]
    item = CollectionItem.from_raw_data(raw)
    assert isinstance(item, IssueItem)
    return item
