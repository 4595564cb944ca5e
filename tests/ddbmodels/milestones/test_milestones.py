"""Milestones on DynamoDB Local: created once, named once per project, edited under their version; a
milestone's issues are one Query of ``milestone_status``; progress comes from the project's counts refresh."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest

from ddbmodels import issues, milestones
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, InvalidInput
from ddbmodels.core.team_data import Shards, Team
from ddbmodels.issues.model import IssueItem, ProjectItem
from ddbmodels.milestones import writes
from ddbmodels.milestones.team import milestone_pages
from tests.ddbmodels.conftest import REPORTER, load

pytestmark = pytest.mark.ddblocal

MakeProject = Callable[..., ProjectItem]


def make(tenant: str, name: str, key: str = "WEB", **fields: object) -> milestones.MilestoneItem:
    item, created = milestones.milestone_create(
        tenant=tenant, project_key=key, name=name, due=fields.pop("due", None), created_by=REPORTER, **fields
    )
    assert created
    return item


def put_issues(tenant: str, count: int, milestone: str | None, *, start: int = 1, status: str = "open") -> None:
    items = [
        IssueItem(
            pk=issues.collection_key(tenant, "WEB"),
            number=number,
            title=f"issue {number}",
            status=status,
            reporter=REPORTER,
            milestone=milestone,
        )
        for number in range(start, start + count)
    ]
    issues.issues_put_many(items)


def test_a_form_creates_its_milestone_once_and_a_name_is_taken_once_per_project(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    make_project("API")
    key = milestones.new_milestone_id()
    first, created = milestones.milestone_create(
        tenant=tenant, project_key="WEB", name="v1.2", due=date(2026, 12, 6), created_by=REPORTER, milestone_id=key
    )
    with capacity.measure() as meter:
        again, created_again = milestones.milestone_create(
            tenant=tenant, project_key="WEB", name="v1.2", due=None, created_by=REPORTER, milestone_id=key
        )
    assert created
    assert not created_again
    assert again.milestone_id == first.milestone_id == key
    assert again.due == "2026-12-06"
    assert meter.wcu == 0
    with pytest.raises(milestones.NameTaken):
        make(tenant, "V1.2")  # names compare without case
    make(tenant, "v1.2", key="API")  # another project's names are its own
    with pytest.raises(InvalidInput):
        make(tenant, 'say "v2"')
    assert [m.name for m in milestones.milestone_list(tenant=tenant, project_key="WEB")] == ["v1.2"]


def test_the_list_is_one_query_open_by_due_date_then_closed(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    later = make(tenant, "v2", due=date(2027, 3, 1))
    make(tenant, "someday")
    make(tenant, "v1", due=date(2026, 12, 1))
    milestones.milestone_set_state(later, state="closed", expected_version=1)
    with capacity.measure() as meter:
        found = milestones.milestone_list(tenant=tenant, project_key="WEB")
    assert [(m.name, m.state) for m in found] == [("v1", "open"), ("someday", "open"), ("v2", "closed")]
    assert meter.requests == 1
    assert meter.rcu <= 1


def test_edits_and_closing_are_refused_on_a_stale_version(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    make(tenant, "v1")
    item = make(tenant, "v2")
    stale = milestones.milestone_get(tenant=tenant, project_key="WEB", milestone_id=item.milestone_id)
    assert stale is not None
    milestones.milestone_update(item, name="v2.0", due=date(2027, 1, 1), description="the big one", expected_version=1)
    with pytest.raises(ChangedSinceRead):
        milestones.milestone_set_state(stale, state="closed", expected_version=1)
    with pytest.raises(milestones.NameTaken):
        milestones.milestone_update(item, name="V1", due=None, description="", expected_version=2)
    closed = milestones.milestone_set_state(item, state="closed", expected_version=2)
    now = milestones.milestone_get(tenant=tenant, project_key="WEB", milestone_id=item.milestone_id)
    assert now is not None
    assert now.state == "closed"
    assert now.closed_at is not None
    assert now.name == "v2.0"
    assert int(closed.version) == 3


def test_a_milestones_issues_are_one_query_and_follow_status_changes_and_deletes(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    v12 = make(tenant, "v1.2")
    put_issues(tenant, 4, v12.milestone_id)
    put_issues(tenant, 3, None, start=5)
    with capacity.measure() as meter:
        page = issues.status_list(tenant=tenant, project_key="WEB", status="open", milestone=v12.milestone_id)
    assert [i.reference for i in page.issues] == ["WEB-4", "WEB-3", "WEB-2", "WEB-1"]
    assert meter.requests == 1
    assert meter.rcu <= 1
    issues.issue_change_status(load(tenant, 4), to="resolved")
    issues.issue_tombstone(load(tenant, 3), by=REPORTER)
    issues.issue_change_status(load(tenant, 5), to="resolved")  # no milestone: in no milestone's list

    def listed(status: str) -> list[str]:
        found = issues.status_list(tenant=tenant, project_key="WEB", status=status, milestone=v12.milestone_id)
        return [i.reference for i in found.issues]

    assert listed("open") == ["WEB-2", "WEB-1"]
    assert listed("resolved") == ["WEB-4"]
    with pytest.raises(ValueError, match="project"):
        issues.status_list(tenant=tenant, status="open", milestone=v12.milestone_id)


def test_progress_comes_from_the_counts_refresh_and_only_changed_milestones_are_written(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    v12, v13, empty = make(tenant, "v1.2"), make(tenant, "v1.3"), make(tenant, "v2")
    put_issues(tenant, 3, v12.milestone_id)
    put_issues(tenant, 2, v12.milestone_id, start=4, status="resolved")
    put_issues(tenant, 1, v13.milestone_id, start=6)
    per: dict[str, dict[str, int]] = {}
    counts = issues.project_counts_refresh(tenant=tenant, key="WEB", milestones=per)
    assert counts["open"] == 4
    assert counts["resolved"] == 2
    assert per[v12.milestone_id] == {"open": 3, "in_progress": 0, "resolved": 2, "closed": 0}
    assert empty.milestone_id not in per
    listed = milestones.milestone_list(tenant=tenant, project_key="WEB")
    with capacity.measure() as meter:
        written = milestones.progress_write(listed, per)
    assert written == 2
    assert meter.requests == 2
    again = milestones.milestone_list(tenant=tenant, project_key="WEB")
    by_name = {m.name: m for m in again}
    assert (by_name["v1.2"].done(), by_name["v1.2"].total(), by_name["v1.2"].remaining()) == (2, 5, 3)
    assert int(by_name["v1.2"].version) == 1  # progress leaves the version alone
    with capacity.measure() as meter:
        assert milestones.progress_write(again, per) == 0
    assert meter.requests == 0


def test_offboarding_finds_each_projects_milestones(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    make_project("API")
    make(tenant, "v1")
    make(tenant, "v2", key="API")
    team = Team(tenant=tenant, shards=Shards(scores=1, events=1), projects=["WEB", "API"])
    found = [item for page in milestone_pages(team, milestones.MilestoneItem.Meta.table_name) for item in page]
    assert sorted(item["nm"]["S"] for item in found if "nm" in item) == ["v1", "v2"]
    assert sorted(item["m"]["S"] for item in found if "nm" not in item) == ["name#v1", "name#v2"]  # their claims


def test_a_copy_without_the_milestone_cannot_move_or_drop_its_milestone_key(
    tenant: str, make_project: MakeProject
) -> None:
    """A list row (no index projects ``ms``) changing the status would rebuild ``xm`` without it: refused."""
    make_project("WEB")
    v12 = make(tenant, "v1.2")
    put_issues(tenant, 1, None)
    moved = issues.issue_change(load(tenant, 1), token="form-1", milestone=v12.milestone_id)
    assert moved.changed
    row = issues.status_list(tenant=tenant, project_key="WEB", status="open").issues[0]
    assert row.milestone is None  # the list row does not know it
    with pytest.raises(ChangedSinceRead):
        issues.issue_change_status(row, to="resolved")
    listed = issues.status_list(tenant=tenant, project_key="WEB", status="open", milestone=v12.milestone_id)
    assert [i.reference for i in listed.issues] == ["WEB-1"]
    issues.issue_change_status(load(tenant, 1), to="resolved")  # the whole item: moves with its milestone
    resolved = issues.status_list(tenant=tenant, project_key="WEB", status="resolved", milestone=v12.milestone_id)
    assert [i.reference for i in resolved.issues] == ["WEB-1"]
    cleared = issues.issue_change(load(tenant, 1), token="form-2", milestone=None)
    assert cleared.changed
    assert (
        issues.status_list(tenant=tenant, project_key="WEB", status="resolved", milestone=v12.milestone_id).issues == []
    )


def test_two_creates_of_one_name_at_the_same_instant_make_one_milestone(
    tenant: str, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review F17: both creates read the list before either wrote (simulated: the second's read sees none); the
    name claim written in the milestone's transaction refuses the second (it made a second "v1.2" before)."""
    make_project("WEB")
    first = make(tenant, "v1.2")
    monkeypatch.setattr(writes, "milestone_list", lambda **kw: [])  # the read both made before either wrote
    with pytest.raises(milestones.NameTaken):
        make(tenant, "V1.2")
    monkeypatch.undo()
    listed = milestones.milestone_list(tenant=tenant, project_key="WEB", consistent=True)
    assert [m.milestone_id for m in listed] == [first.milestone_id]  # one list Query, claims left out of it
    renamed = milestones.milestone_update(first, name="v1.3", due=None, description="", expected_version=1)
    assert renamed.name == "v1.3"
    assert int(renamed.version) == 2
    make(tenant, "v1.2")  # a rename frees the old name at once
    other = make(tenant, "v2")
    monkeypatch.setattr(writes, "milestone_list", lambda **kw: [])
    with pytest.raises(milestones.NameTaken):  # a rename meets the claim too
        milestones.milestone_update(other, name="V1.3", due=None, description="", expected_version=1)
    monkeypatch.undo()
    assert sorted(m.name for m in milestones.milestone_list(tenant=tenant, project_key="WEB")) == ["v1.2", "v1.3", "v2"]


@pytest.mark.slow
def test_a_project_keeps_at_most_its_stated_number_of_milestones_and_lists_them_all(
    tenant: str, make_project: MakeProject
) -> None:
    """Review F7: the 201st milestone was created and then missing from the list (Limit 200, oldest first)."""
    make_project("WEB")
    for number in range(200):
        make(tenant, f"sprint {number + 1}")
    with pytest.raises(InvalidInput) as refused:  # milestones.TooMany: a form error on the page
        make(tenant, "sprint 201")
    assert refused.value.code == "milestones_too_many"
    stored = milestones.MilestoneItem.count(
        milestones.partition_key(tenant, "WEB"), milestones.MilestoneItem.milestone_id < "name#"
    )
    assert stored == 200
    listed = milestones.milestone_list(tenant=tenant, project_key="WEB")
    assert {m.name for m in listed} == {f"sprint {number}" for number in range(1, 201)}
