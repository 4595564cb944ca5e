"""A status change's label entries, as a person sees them in the label lists, and their repair by the change task.

The issue's own update and its label entries are separate writes (``ddbmodels.labels``): a process
that stops between them leaves the lists stale until the change's task runs, which repairs them.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from ddbmodels import issues, labels
from ddbmodels.issues.model import issue_row
from tests.tracker.conftest import World
from tracker import tasks

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
