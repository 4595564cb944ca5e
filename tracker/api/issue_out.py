"""An issue as the API shows it: the one renderer of every answer that holds an issue.

``IssueSummary`` is what a list row holds — the list indexes' projection (``LIST_ATTRIBUTES`` of
``ddbmodels.issues.indexes`` with the update time), so a list page renders from its one Query and
never reads an issue item: reference, number, project, title, status, priority, assignee, labels,
reporter, created, updated, version. ``IssueOut`` adds what only the item holds (the description, the
milestone, where an import brought it from): the answer of one issue, of a create and of an edit.

``issue_summary``/``issue_out`` return JSON-ready dicts (strings, numbers, lists) in the schema's field
order, as the API sends them (``schemas.as_sent``): validating one against its schema and rendering it again as
ninja does gives the same JSON, so an operation may answer it through ninja (``response=IssueOut``) or
as a JSON body of its own (a create and its replays, a 412's ``current``, a webhook's payload), and one
resource reads the same in every answer. Times are UTC, ISO 8601 with ``Z``, to the millisecond (as
ninja's encoder renders a ``datetime``). ETags come from ``version`` (``tracker.api.etag``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Schema
from pydantic import Field

from tracker.api.schemas import as_sent

if TYPE_CHECKING:
    from ddbmodels.issues import IssueItem

# ddbmodels.issues.STATUSES / PRIORITIES, spelt out for the schema's enums (tests/tracker/api/test_issue_out.py
# fails if they part).
Status = Literal["open", "in_progress", "resolved", "closed"]
Priority = Literal["low", "medium", "high", "urgent"]


class IssueSummary(Schema):
    """An issue as a list shows it: no description (list pages never read the items that hold it)."""

    reference: str = Field(description="The issue's name in the team, e.g. WEB-42.", examples=["WEB-42"])
    project: str = Field(description="The project's key.", examples=["WEB"])
    number: int = Field(description="Its number in the project (never reused).", examples=[42])
    title: str
    status: Status
    priority: Priority
    assignee: str | None = Field(description="The assignee's username; null when unassigned.")
    labels: list[str] = Field(description="Its labels, sorted.")
    reporter: str = Field(description="Who reported it (username).")
    created_at: datetime
    updated_at: datetime
    version: int = Field(description="Goes up by one with every change; the ETag of the issue is its quoted value.")


class MilestoneRef(Schema):
    """The milestone an issue is in."""

    id: str
    name: str


class ImportedFrom(Schema):
    """Where an imported issue came from (its history starts there)."""

    source: str = Field(description="The export's format: github, jira or csv.")
    ref: str | None = Field(description="Its name there, e.g. octo/repo#12.")
    url: str | None = Field(description="Its page there.")


class IssueOut(IssueSummary):
    """One issue, whole."""

    description: str = Field(description="Markdown; empty when none.")
    milestone: MilestoneRef | None
    imported_from: ImportedFrom | None = Field(description="Set on an issue an import created.")


def issue_summary(item: IssueItem) -> dict[str, Any]:
    """The list row of ``item`` (an issue or a list index's row of one), JSON-ready; reads nothing."""
    summary = IssueSummary(
        reference=item.reference,
        project=item.project_key,
        number=int(item.number),
        title=item.title,
        status=item.status,  # type: ignore[arg-type]  # one of STATUSES, as stored
        priority=item.priority,  # type: ignore[arg-type]  # one of PRIORITIES, as stored
        assignee=item.assignee or None,
        labels=sorted(item.labels or ()),
        reporter=item.reporter,
        created_at=item.created_at,
        updated_at=item.updated_at,
        version=int(item.version or 0),
    )
    return as_sent(summary)


def issue_out(item: IssueItem, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The whole of ``item``, JSON-ready; ``names`` maps the project's milestone ids to their names
    (``selectors.milestones.milestone_names``, cached); reads nothing."""
    milestone_id = getattr(item, "milestone", None)
    origin = item.imported
    whole = IssueOut(
        **issue_summary(item),
        description=item.description or "",
        milestone=MilestoneRef(id=milestone_id, name=(names or {}).get(milestone_id, milestone_id))
        if milestone_id
        else None,
        imported_from=ImportedFrom(source=origin.source, ref=origin.ref, url=origin.url) if origin else None,
    )
    return as_sent(whole)
