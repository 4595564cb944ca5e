"""An imported issue's history starts with its import: from where, by whom, when, and when it was created there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ddbmodels import issues as ddb_issues
from tests.tracker.conftest import World
from tests.tracker.helpers import text
from tests.tracker.import_helpers import github_export, jira_import
from tests.tracker.test_import_pages import COUNT, Queued, form_data, import_id_of, imports_dir, post, queued, run_task
from tracker.imports import parse
from tracker.selectors.activity import issue_history_page

pytestmark = pytest.mark.ddblocal
__all__ = ["imports_dir", "queued"]  # the fixtures, used by name


def with_links(entries: list[dict[str, Any]]) -> bytes:
    for entry in entries:
        entry["html_url"] = f"https://github.com/octo/widgets/issues/{entry['number']}"
    entries[0]["html_url"] = "javascript:alert(1)"  # not a web page: no link, no reference
    return json.dumps(entries).encode()


def test_an_issue_imported_from_github_says_so_first_in_its_history(
    world: World, imports_dir: Path, queued: Queued
) -> None:
    client = world.client_for(world.owner)
    fields = form_data(client, world, data=with_links(github_export(COUNT)))
    run_task(world, import_id_of(post(client, world, fields), world))

    page = text(client.get(world.url("p/MOVED/3/")))
    history = page.split('id="history"', 1)[1]
    assert "No changes recorded" not in history
    assert "Older history is archived" not in history
    assert f"<strong>{world.owner.username}</strong> imported the issue from GitHub (octo/widgets#3) on " in history
    assert "created there 1 Feb 2026 by octocat" in history  # the export's own time and author
    assert 'href="https://github.com/octo/widgets/issues/3"' in history

    first = ddb_issues.issue_get(tenant=world.slug, project_key="MOVED", number=1)
    assert first is not None
    assert first.imported is not None
    assert (first.imported.ref, first.imported.url) == (None, None)
    assert "javascript:" not in text(client.get(world.url("p/MOVED/1/")))


def test_a_command_import_names_its_format_reference_and_who_ran_it(world: World, tmp_path: Path) -> None:
    jira_import(world.slug, tmp_path, "OPS-7,Pager storm,In Progress,High,bob,03/Mar/18 9:30 AM", by="alice")
    issue = ddb_issues.issue_get(tenant=world.slug, project_key="OPS", number=7)
    assert issue is not None
    history = issue_history_page(issue=issue)
    assert not history.archived  # nothing older than the import was ever here
    assert [(line.actor, line.text.split(" on ")[0]) for line in history.lines] == [
        ("alice", "imported the issue from Jira (OPS-7)")
    ]
    assert history.lines[0].text.endswith("; created there 3 Mar 2018 by bob")


def test_the_origin_is_not_part_of_what_an_export_says(tmp_path: Path) -> None:
    path = tmp_path / "issues.json"
    path.write_text(with_links(github_export(3)).decode())
    linked, plain = parse("github", path), parse("github", _plain(tmp_path))
    assert linked[1].ref == "octo/widgets#2"
    assert linked == plain  # an export written back without links is the same issues


def _plain(tmp_path: Path) -> Path:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(github_export(3)))
    return path


def test_a_plain_csv_may_name_each_issues_page_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "issues.csv"
    path.write_text("number,title,url\n1,One,https://tracker.example/ISS-1\n2,Two,ftp://nope\n3,Three,\n")
    assert [r.url for r in parse("csv", path)] == ["https://tracker.example/ISS-1", None, None]
