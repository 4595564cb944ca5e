"""Issue lists, each one Query of a key whose value is the filter — about one page of reads at any size.

    a project's issues in a status, by number     index project_status          PK xs        SK n
    … by last update                              index project_status_updated  PK xs        SK ua
    the team's issues in a status                 index team_status             PK xt        SK ua
    one person's issues in a status               index assignee_status         PK xa        SK ua
    a milestone's issues in a status (by number)  index milestone_status        PK xm        SK n
    a label's issues in a status (team/project)   table labels PK lk = "<team>#<label>"
                                                               SK begins_with "<status>#[<PROJECT>#]"

Search is not a DynamoDB list: the search engine (``tracker/search``) answers it, then one BatchGetItem.

Each reads ``size + 1`` entries of ≈ 150–300 bytes: 26 rows ≈ 4–8 KB, 0.5–1 RCU eventually
consistent, one request. One combination reads more than it shows, within a stated bound:

* a person's issues inside one project: the ``assignee_status`` Query with a FilterExpression on
  the project — it reads that person's issues in that status in the other projects too (a
  person's open work: tens of issues, a few KB).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ddbmodels import labels as ddb_labels
from ddbmodels.core import capacity
from ddbmodels.issues.indexes import (
    AssigneeStatusIndex,
    MilestoneStatusIndex,
    ProjectStatusIndex,
    ProjectStatusUpdatedIndex,
    TeamStatusIndex,
    assignee_status_key,
    milestone_status_key,
    project_status_key,
    team_status_key,
)
from ddbmodels.issues.model import CollectionItem, IssueItem, collection_key, issue_from_entry
from ddbmodels.patterns.pagination import KeyPage, keyed_page

SORTS = ("number", "updated")


@dataclass(frozen=True)
class IssuePage:
    """Rows in display order; the keys to continue from (opaque: callers sign them into cursors)."""

    issues: list[IssueItem]
    next_key: dict[str, Any] | None
    prev_key: dict[str, Any] | None


def _index_page(
    index: Any,
    hash_value: str,
    key_names: tuple[str, ...],
    *,
    size: int,
    start: dict[str, Any] | None,
    backwards: bool,
    ascending: bool,
    filter_condition: Any = None,
) -> KeyPage:
    connection = CollectionItem._get_connection()

    def query(exclusive_start_key: dict[str, Any] | None, forward: bool, limit: int) -> dict[str, Any]:
        return connection.query(
            hash_value,
            index_name=index.Meta.index_name,
            filter_condition=filter_condition,
            exclusive_start_key=exclusive_start_key,
            scan_index_forward=forward,
            limit=limit,
        )

    return keyed_page(query, key_names=key_names, size=size, start=start, backwards=backwards, ascending=ascending)


def _rows(items: list[dict[str, Any]]) -> list[IssueItem]:
    rows = []
    for raw in items:
        item = CollectionItem.from_raw_data(raw)
        assert isinstance(item, IssueItem)
        rows.append(item)
    return rows


@capacity.access_pattern("issues.list")
def status_list(
    *,
    tenant: str,
    status: str,
    project_key: str | None = None,
    assignee: str | None = None,
    milestone: str | None = None,
    sort: str = "number",
    ascending: bool = False,
    size: int = 25,
    start: dict[str, Any] | None = None,
    backwards: bool = False,
) -> IssuePage:
    """Query one list index, Limit size+1 — ≈ 0.5–1 RCU, one request (see the module docstring).

    Project lists sort by number or last update; team-wide and per-person lists by last update; a
    milestone's (a project's, ``milestone`` its id) by number, whatever ``sort`` says.
    """
    index: Any
    if milestone:
        if not project_key:
            raise ValueError("a milestone list is a project's")
        index, hash_value = MilestoneStatusIndex, milestone_status_key(tenant, project_key, milestone, status)
        key_names: tuple[str, ...] = ("pk", "n", "xm")
    elif assignee:
        index, hash_value = AssigneeStatusIndex, assignee_status_key(tenant, assignee, status)
        key_names = ("pk", "n", "xa", "ua")
    elif project_key:
        by_number = sort == "number"
        index = ProjectStatusIndex if by_number else ProjectStatusUpdatedIndex
        hash_value = project_status_key(tenant, project_key, status)
        key_names = ("pk", "n", "xs") if by_number else ("pk", "n", "xs", "ua")
    else:
        index, hash_value, key_names = TeamStatusIndex, team_status_key(tenant, status), ("pk", "n", "xt", "ua")
    in_project = (
        CollectionItem.pk == collection_key(tenant, project_key) if assignee and project_key and not milestone else None
    )
    page = _index_page(
        index,
        hash_value,
        key_names,
        size=size,
        start=start,
        backwards=backwards,
        ascending=ascending,
        filter_condition=in_project,
    )
    return IssuePage(issues=_rows(page.items), next_key=page.next_key, prev_key=page.prev_key)


@capacity.access_pattern("issues.list")
def label_list(
    *,
    tenant: str,
    label: str,
    status: str,
    project_key: str | None = None,
    size: int = 25,
    start: dict[str, Any] | None = None,
    backwards: bool = False,
) -> IssuePage:
    """Query labels lk="<team>#<label>", begins_with(s, "<status>#[<PROJECT>#]"), Limit size+1 — ≈ 0.5–1 RCU.

    Rows come from the entries' copies (no second read); ordered by project key, then number, newest first.
    """
    page = ddb_labels.entry_page(
        tenant=tenant,
        label=label,
        prefix=ddb_labels.label_prefix(status, project_key),
        size=size,
        start=start,
        backwards=backwards,
    )
    return IssuePage(
        issues=[issue_from_entry(tenant, entry) for entry in page.items], next_key=page.next_key, prev_key=page.prev_key
    )
