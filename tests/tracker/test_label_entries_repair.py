"""A status change's label entries, as a person sees them in the label lists, and their repair by the change task.

The issue's own update and its label entries are separate writes (``ddbmodels.labels``): a process
that stops between them leaves the lists stale until the change's task runs, which repairs them.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from django.core.management import call_command

from ddbmodels import issues, labels
from ddbmodels.core import connection
from ddbmodels.issues.model import issue_row
from tests.tracker.conftest import World
from tracker import tasks
from tracker.models import Membership
from tracker.services import activity
from tracker.services import issues as services_issues

pytestmark = pytest.mark.ddblocal


def bug_list(world: World, status: str) -> list[str]:
    return [i.reference for i in issues.label_list(tenant=world.slug, label="bug", status=status).issues]


def test_the_change_task_repairs_entries_a_writer_that_stopped_left_behind(world: World) -> None:
    made = issues.issue_create(
        tenant=world.slug, project_key="WEB", title="Crash on save", reporter="ann", labels=["bug", "ui"]
    ).item
    old = labels.entries_for(issue_row(made))
    moved = issues.issue_change_status(made, to="in_progress")
    # as if the process had stopped after the issue's update: the entries still say "open"
    for entry in labels.entries_for(issue_row(moved)).values():
        labels.LabelEntry._get_connection().delete_item(entry["lk"]["S"], entry["s"]["S"])
    for entry in old.values():
        labels.entry_put(entry)
    assert bug_list(world, "open") == ["WEB-1"]
    assert bug_list(world, "in_progress") == []

    tasks.search_index_change.apply(kwargs={"tenant": world.slug, "project_key": "WEB", "number": 1}).get()

    assert bug_list(world, "open") == []
    assert bug_list(world, "in_progress") == ["WEB-1"]
    again = issues.issue_labels_reconcile(tenant=world.slug, project_key="WEB", number=1)
    assert (again.put, again.deleted) == (0, 0)  # nothing left to do


def test_the_labels_check_finds_and_repairs_what_no_change_event_fixed(world: World) -> None:
    made = issues.issue_create(
        tenant=world.slug, project_key="WEB", title="Slow search", reporter="ann", labels=["perf"]
    ).item
    stale = labels.entries_for(issue_row(made))  # its "open" entry, kept below as a writer that stopped would
    issues.issue_update(made, title="Slow search", description="", priority="high", assignee=None, labels=[])
    for entry in stale.values():
        labels.entry_put({**entry, "v": {"N": "1"}})
    assert bug_list(world, "open") == []
    assert [i.reference for i in issues.label_list(tenant=world.slug, label="perf", status="open").issues] == ["WEB-1"]

    out = io.StringIO()
    call_command("upgrade_search", "--check-labels", "--json", stdout=out)
    result = json.loads(out.getvalue()[out.getvalue().index("{") :])["result"][world.slug]

    assert (result["stale"], result["fixed"]) == (1, 1)  # the label was removed: its entry found and removed
    assert issues.label_list(tenant=world.slug, label="perf", status="open").issues == []
    again = issues.team_labels_check(tenant=world.slug)
    assert (again.stale, again.entries) == (0, result["entries"] - 1)  # the rest were right, and stay


def test_an_entry_whose_label_set_comes_back_in_another_order_is_the_same_entry() -> None:
    # DynamoDB returns a string set's members in any order: a reconcile must not rewrite such an entry.
    from ddbmodels.issues.bulk import same_item

    wanted = {"lk": {"S": "acme#bug"}, "lb": {"SS": ["bug", "ui"]}, "v": {"N": "2"}}
    assert same_item({"lk": {"S": "acme#bug"}, "lb": {"SS": ["ui", "bug"]}, "v": {"N": "2"}}, wanted)
    assert not same_item({"lk": {"S": "acme#bug"}, "lb": {"SS": ["ui"]}, "v": {"N": "2"}}, wanted)
    assert not same_item({"lk": {"S": "acme#bug"}, "lb": {"SS": ["bug", "ui"]}, "v": {"N": "1"}}, wanted)
    assert not same_item(None, wanted)


@pytest.fixture
def queued(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Recorded changes queue their change task; kept here (their kwargs) instead of sent to the broker."""
    settings.SEARCH_INDEX_QUEUE = True
    kept: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.search_index_change, "apply_async", lambda *a, kwargs, **o: kept.append(kwargs))
    return kept


def test_the_change_task_of_an_edit_that_removed_a_label_removes_a_late_entry_of_it(
    world: World, queued: list[dict[str, Any]]
) -> None:
    # A slow writer's older entry lands after the edit that removed its label: the removed label is
    # not among the issue's labels any more, so the change task must be told to check it.
    made = issues.issue_create(tenant=world.slug, project_key="WEB", title="A", reporter="ann", labels=["x"]).item
    slow = labels.entries_for(issue_row(made))
    edited = issues.issue_update(made, title="A", description="", priority="medium", assignee=None, labels=[])
    for entry in slow.values():
        assert labels.entry_put(entry)  # the late put: nothing guarded the deleted key
    assert bug_list_of(world, "x") == ["WEB-1"]

    activity.record(edited, kind="issue.edited", actor="ann", data={"labels": {"added": [], "removed": ["x"]}})
    assert queued[-1]["labels_also"] == ["x"]
    tasks.search_index_change.apply(kwargs=queued[-1]).get()

    assert bug_list_of(world, "x") == []


def test_the_change_task_of_a_deletion_removes_a_late_entry_of_the_labels_the_issue_had(
    world: World, queued: list[dict[str, Any]]
) -> None:
    made = issues.issue_create(tenant=world.slug, project_key="WEB", title="Secret", reporter="ann", labels=["x"]).item
    slow = labels.entries_for(issue_row(made))
    project = issues.project_get(tenant=world.slug, key="WEB")
    assert project is not None
    services_issues.issue_delete(
        membership=Membership.objects.get(tenant=world.tenant, user=world.owner),
        project=project,
        issue=made,
        expected_version=int(made.version),
    )
    for entry in slow.values():
        assert labels.entry_put(entry)  # the late put of the deleted issue's entry, with its old title
    assert bug_list_of(world, "x") == ["WEB-1"]

    assert queued[-1]["labels_also"] == ["x"]
    tasks.search_index_change.apply(kwargs=queued[-1]).get()

    assert bug_list_of(world, "x") == []


def bug_list_of(world: World, label: str) -> list[str]:
    return [i.reference for i in issues.label_list(tenant=world.slug, label=label, status="open").issues]


def test_the_labels_check_brings_entries_a_create_left_one_version_behind_up_to_their_issue(world: World) -> None:
    # Data written before creates carried their version into their label entries: each entry at version 0, its
    # never-edited issue stored at 1. A list filtered by the label showed the rows one version behind, and a bulk
    # edit from it refused them all as "changed since the list was loaded"; the labels check repairs such entries.
    for title in ("Crash", "Freeze"):
        made = issues.issue_create(
            tenant=world.slug, project_key="WEB", title=title, reporter="ann", labels=["bug", "ui"]
        ).item
        for entry in labels.entries_for(issue_row(made)).values():  # as the old create wrote them, unconditionally
            connection.client().put_item(TableName=labels.LabelEntry.Meta.table_name, Item={**entry, "v": {"N": "0"}})
    member = world.client_for(world.member)
    assert bulk_from_the_bug_list(world, member, priority="high") == {"2": "0", "1": "0"}
    assert priorities(world) == ["medium", "medium"]  # refused as changed since the list was loaded

    out = io.StringIO()
    call_command("upgrade_search", "--check-labels", "--json", stdout=out)
    result = json.loads(out.getvalue()[out.getvalue().index("{") :])["result"][world.slug]

    assert (result["stale"], result["fixed"]) == (4, 2)  # both labels' entries of both issues
    for label in ("bug", "ui"):
        rows = issues.label_list(tenant=world.slug, label=label, status="open").issues
        assert [(row.reference, row.version) for row in rows] == [("WEB-2", 1), ("WEB-1", 1)]
    assert bulk_from_the_bug_list(world, member, priority="high") == {"2": "1", "1": "1"}
    assert priorities(world) == ["high", "high"]  # the bulk edit from the label's list went through
    assert issues.team_labels_check(tenant=world.slug).stale == 0


def bulk_from_the_bug_list(world: World, member: Any, **change: str) -> dict[str, str]:
    """Load the project's list filtered by label:bug, post its bulk form for every row; its rows' versions."""
    body = member.get(world.project_url("?q=label%3Abug")).content.decode()
    rows = dict(re.findall(r'<input type="hidden" name="v(\d+)" value="(\d+)" form="bulk">', body))
    key = re.search(r'name="idempotency_key" value="([^"]+)"', body)
    assert key is not None
    data = {"idempotency_key": key.group(1), "n": list(rows), **change, **{f"v{n}": v for n, v in rows.items()}}
    assert member.post(world.project_url("bulk/"), data).status_code == 302
    return rows


def priorities(world: World) -> list[str]:
    found = [issues.issue_get(tenant=world.slug, project_key="WEB", number=n, consistent=True) for n in (1, 2)]
    return [issue.priority for issue in found if issue is not None]
