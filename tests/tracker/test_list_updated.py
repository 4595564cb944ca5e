"""Every issue list shows when each issue was last updated — the stored time, never the page's "now".

The project list's default sort (newest first) reads the ``project_status_number`` index; before it
projected the update time, every row of that list said "0 minutes ago", imported issues of 2018 too.
"""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command

from ddbmodels import issues
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem, collection_key
from tests.tracker.conftest import World
from tests.tracker.helpers import text

TIME = re.compile(
    r'<td data-label="Issue"><a [^>]*>([A-Z]+-\d+)</a>.*?<time datetime="([^"]+)"[^>]*>([^<]+)</time>', re.S
)


def updated_cells(response: object) -> dict[str, tuple[str, str]]:
    """Each row's reference → (its <time datetime>, the words shown)."""
    return {ref: (when, shown.replace("\xa0", " ")) for ref, when, shown in TIME.findall(text(response))}  # type: ignore[arg-type]


@pytest.fixture
def aged(world: World) -> World:
    """WEB-1…4, open, last updated 3 years and some days ago (WEB-3 assigned to the member, labelled bug)."""
    now = utcnow()

    def issue(n: int) -> IssueItem:
        when = now - timedelta(days=3 * 366 + n)
        return IssueItem(
            pk=collection_key(world.slug, "WEB"),
            number=n,
            title=f"Old deploy chore {n}",
            status="open",
            priority="medium",
            assignee=world.member.username if n == 3 else None,
            reporter=world.owner.username,
            labels={"bug"} if n == 3 else None,
            created_at=when - timedelta(days=30),
            updated_at=when,
        )

    issues.issues_put_many(issue(n) for n in range(1, 5))
    return world


@pytest.mark.parametrize("sort", ["", "newest", "oldest", "updated", "stale"])
def test_a_project_list_shows_each_issues_own_update_time_in_every_sort(aged: World, sort: str) -> None:
    response = aged.client_for(aged.viewer).get(aged.project_url(), {"sort": sort} if sort else {})
    cells = updated_cells(response)
    assert sorted(cells) == ["WEB-1", "WEB-2", "WEB-3", "WEB-4"]
    for n in range(1, 5):
        stored = issues.issue_get(tenant=aged.slug, project_key="WEB", number=n)
        assert stored is not None
        when, shown = cells[f"WEB-{n}"]
        assert datetime.fromisoformat(when) == stored.updated_at
        assert shown.startswith("3 years"), shown


@pytest.mark.parametrize(
    ("where", "query"), [("team", "is:open"), ("team", "assignee:@me"), ("project", "label:bug"), ("team", "label:bug")]
)
def test_the_other_lists_show_the_stored_update_time_too(aged: World, where: str, query: str) -> None:
    url = aged.project_url() if where == "project" else aged.url("issues/")
    cells = updated_cells(aged.client_for(aged.member).get(url, {"q": query}))
    assert cells
    assert all(shown.startswith("3 years") for _, shown in cells.values()), cells


def test_the_number_sorted_list_reads_the_update_time_from_its_index(aged: World) -> None:
    page = issues.status_list(tenant=aged.slug, status="open", project_key="WEB", sort="number")
    assert [int(i.number) for i in page.issues] == [4, 3, 2, 1]
    assert all(utcnow() - i.updated_at > timedelta(days=3 * 365) for i in page.issues)


def test_issues_imported_from_2018_show_2018_in_the_project_list(world: World, tmp_path: Path) -> None:
    export = tmp_path / "old.json"
    created = datetime(2018, 3, 4, 5, 6, tzinfo=UTC)
    export.write_text(
        json.dumps(
            [
                {
                    "number": n,
                    "title": f"Imported in 2018, number {n}",
                    "body": "",
                    "state": "open",
                    "labels": [],
                    "assignee": None,
                    "user": {"login": "octocat"},
                    "created_at": (created + timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "closed_at": None,
                    "comments": 0,
                }
                for n in (1, 2)
            ]
        )
    )
    call_command("import_issues", world.slug, "--format", "github", "--project", f"OLD={export}", stdout=io.StringIO())
    response = world.client_for(world.viewer).get(world.url("p/OLD/"))
    cells = updated_cells(response)
    assert {ref: when[:10] for ref, (when, _) in cells.items()} == {"OLD-1": "2018-03-05", "OLD-2": "2018-03-06"}
    assert all(shown.startswith(("8 years", "7 years")) for _, shown in cells.values()), cells


def test_every_list_index_carries_the_update_time() -> None:
    """A row read from an index without ``ua`` gets PynamoDB's default for it, "now": every list index must carry it."""
    from ddbmodels.issues import CollectionItem

    lists = [i for i in CollectionItem._get_schema()["global_secondary_indexes"] if i["index_name"] != "projects"]
    assert {i["index_name"] for i in lists} == {
        "project_status_number",
        "project_status_updated",
        "team_status",
        "assignee_status",
        "milestone_status",
    }
    for index in lists:
        keys = {key["AttributeName"] for key in index["key_schema"]}
        assert "ua" in keys | set(index["projection"].get("NonKeyAttributes", ())), index["index_name"]
