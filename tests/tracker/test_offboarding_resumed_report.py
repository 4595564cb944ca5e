"""The report of the offboarding run that finishes lists every archive any run rewrote (issue 20, finding 1).

An offboarding can take several runs: one killed after its archives stage resumes at its checkpoint
(the ``check`` stage), and one that dies after its DynamoDB work (its checkpoint cleared) or that leaves
items written after its export starts over. The archives stage of a later run finds nothing of the team
left in an archive a former run rewrote ("clean"), so the last report (``RetiredSlug.report``) must take
what the former runs rewrote from the checkpoint and from the report kept before.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from ddbmodels.core import tables
from ddbmodels.tenants import offboarding as ddb_offboarding
from tests.tracker.conftest import World
from tests.tracker.test_offboarding_everywhere import old_events, old_period_table, put_all
from tracker.models import RetiredSlug
from tracker.services import team_leftovers
from tracker.services.offboarding import merged_archives

REMOVED_BY = {"issue.created": 10, "issue.edited": 10, "attachment.added": 10, "comment.added": 10}


def archived_period(days_ago: int, world: World, other_world: World) -> str:
    """An old period holding 40 events of each team, archived and dropped by the daily job."""
    old = old_period_table(days_ago)
    words = {"title": ["Plan A", "Plan B"]}
    put_all(old, old_events(old, world, words) + old_events(old, other_world, words))
    call_command("archive_event_tables", stdout=io.StringIO())
    assert tables.describe_table(old) is None
    return old


def offboard(slug: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("offboard_tenant", slug, "--yes", "--json", stdout=out)
    result: dict[str, Any] = json.loads(out.getvalue())["result"]
    return result


def assert_lists_the_rewrite(report: dict[str, Any], old: str) -> None:
    entry = report["archives_rewritten"][old]
    assert entry["action"] == "rewritten", entry
    assert (entry["removed"], entry["kept"]) == (40, 40)
    assert entry["removed_by"] == REMOVED_BY


def test_killed_after_its_archives_stage_the_resumed_run_still_reports_the_rewritten_archive(
    world: World, other_world: World, media: Path, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = archived_period(560, world, other_world)

    def killed(*args: Any, **kwargs: Any) -> dict[str, int]:
        raise RuntimeError("worker killed")  # in the check stage: the archives stage's checkpoint is saved

    monkeypatch.setattr(ddb_offboarding, "remaining", killed)
    with pytest.raises(RuntimeError, match="worker killed"):
        offboard(world.slug)
    monkeypatch.undo()

    result = offboard(world.slug)

    assert result["resumed_from"]["stage"] == "check"
    assert result["finished"]
    assert_lists_the_rewrite(result, old)
    assert_lists_the_rewrite(RetiredSlug.objects.get(slug=world.slug).report, old)


def test_a_run_that_starts_over_after_the_dynamodb_work_still_reports_what_the_first_one_rewrote(
    world: World, other_world: World, media: Path, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = archived_period(640, world, other_world)

    def killed(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("worker killed")  # the DynamoDB work is done and its checkpoint cleared

    monkeypatch.setattr(team_leftovers, "sweep", killed)
    with pytest.raises(RuntimeError, match="worker killed"):
        offboard(world.slug)
    monkeypatch.undo()

    result = offboard(world.slug)  # starts over: a new export (empty), every archive read again

    assert result["resumed_from"] is None
    assert result["finished"]
    assert_lists_the_rewrite(result, old)
    assert_lists_the_rewrite(RetiredSlug.objects.get(slug=world.slug).report, old)
    # Staff run it once more: the third report still lists it.
    assert_lists_the_rewrite(offboard(world.slug), old)
    assert_lists_the_rewrite(RetiredSlug.objects.get(slug=world.slug).report, old)


def test_merging_keeps_what_a_former_run_did_unless_a_later_run_did_something_to_that_archive() -> None:
    rewritten = {"action": "rewritten", "ok": True, "removed": 40, "kept": 40}
    orphan = {"action": "orphan_deleted", "ok": True, "files_deleted": 1}
    clean = {"action": "clean", "ok": True, "removed": 0, "kept": 40}
    again = {"action": "rewritten", "ok": True, "removed": 2, "kept": 38}

    merged = merged_archives({"a": rewritten, "b": orphan, "c": clean}, {"a": clean, "c": again, "d": clean})

    assert merged == {
        "a": {**rewritten, "in_an_earlier_run": True},
        "b": {**orphan, "in_an_earlier_run": True},
        "c": again,
        "d": clean,
    }
    both = merged_archives({"a": rewritten}, {"a": again})
    assert both == {"a": {**again, "earlier_runs": [rewritten]}}
    assert merged_archives({"a": both["a"]}, {"a": clean}) == {"a": {**both["a"], "in_an_earlier_run": True}}
