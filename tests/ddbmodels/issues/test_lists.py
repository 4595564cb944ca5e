"""Issue lists on DynamoDB Local: every list is one Query of a key that is the filter, kept right by every write."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels import issues, labels
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.issues.model import IssueItem, ProjectItem, issue_row
from ddbmodels.tenants import reads as tenant_reads
from tests.ddbmodels.conftest import REPORTER
from tests.ddbmodels.issues.test_issues import edit

pytestmark = pytest.mark.ddblocal

MakeProject = Callable[..., ProjectItem]


def refs(page: issues.IssuePage) -> list[str]:
    return [issue.reference for issue in page.issues]


def create(tenant: str, key: str, title: str, **fields: object) -> IssueItem:
    return issues.issue_create(tenant=tenant, project_key=key, title=title, reporter=REPORTER, **fields).item


def entries(tenant: str) -> list[str]:
    """Every label entry of the team, as "<label>#<status>#<PROJECT>#<number>" (the registry items left out)."""
    found = [item for page in tenant_reads.labels_pages(tenant) for item in page if item["lk"]["S"] != tenant]
    return sorted(f"{item['lk']['S'].split('#', 1)[1]}#{item['s']['S']}" for item in found)


def test_the_open_list_holds_exactly_the_open_issues_newest_first_in_one_request(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    made = [create(tenant, "WEB", f"task {i}") for i in range(1, 9)]
    for issue in made[:5]:
        issues.issue_change_status(issue, to="closed")
    with capacity.measure() as meter:
        page = issues.status_list(tenant=tenant, project_key="WEB", status="open")
    assert refs(page) == ["WEB-8", "WEB-7", "WEB-6"]
    assert meter.requests == 1
    closed = issues.status_list(tenant=tenant, project_key="WEB", status="closed")
    assert refs(closed) == ["WEB-5", "WEB-4", "WEB-3", "WEB-2", "WEB-1"]
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="open", ascending=True)) == [
        "WEB-6",
        "WEB-7",
        "WEB-8",
    ]


def test_pages_follow_their_keys_forwards_and_back(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    for i in range(1, 8):
        create(tenant, "WEB", f"task {i}")
    first = issues.status_list(tenant=tenant, project_key="WEB", status="open", size=3)
    assert refs(first) == ["WEB-7", "WEB-6", "WEB-5"]
    assert first.prev_key is None
    second = issues.status_list(tenant=tenant, project_key="WEB", status="open", size=3, start=first.next_key)
    assert refs(second) == ["WEB-4", "WEB-3", "WEB-2"]
    third = issues.status_list(tenant=tenant, project_key="WEB", status="open", size=3, start=second.next_key)
    assert refs(third) == ["WEB-1"]
    assert third.next_key is None
    back = issues.status_list(
        tenant=tenant, project_key="WEB", status="open", size=3, start=second.prev_key, backwards=True
    )
    assert refs(back) == ["WEB-7", "WEB-6", "WEB-5"]
    assert back.prev_key is None
    assert back.next_key is not None


def test_the_updated_sort_puts_the_last_changed_issue_first(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    made = [create(tenant, "WEB", f"task {i}") for i in range(1, 4)]
    edit(made[0], priority="high")
    page = issues.status_list(tenant=tenant, project_key="WEB", status="open", sort="updated")
    assert refs(page) == ["WEB-1", "WEB-3", "WEB-2"]


def test_my_issues_span_projects_and_follow_reassignment(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    make_project("API")
    web = create(tenant, "WEB", "login page", assignee="alice")
    create(tenant, "API", "token refresh", assignee="alice")
    create(tenant, "API", "rate limits", assignee="bob")
    assert refs(issues.status_list(tenant=tenant, assignee="alice", status="open")) == ["API-1", "WEB-1"]
    edit(web, assignee="bob")
    assert refs(issues.status_list(tenant=tenant, assignee="alice", status="open")) == ["API-1"]
    assert refs(issues.status_list(tenant=tenant, assignee="bob", status="open")) == ["WEB-1", "API-2"]
    assert refs(issues.status_list(tenant=tenant, assignee="bob", status="open", project_key="API")) == ["API-2"]
    team = issues.status_list(tenant=tenant, status="open")
    assert refs(team) == ["WEB-1", "API-2", "API-1"]


def test_label_lists_follow_status_changes_label_edits_and_deletes(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    make_project("API")
    a = create(tenant, "WEB", "crash on save", labels=["bug"])
    b = create(tenant, "WEB", "dark mode", labels=["feature"])
    c = create(tenant, "API", "timeout on upload", labels=["bug", "backend"])
    with capacity.measure() as meter:
        page = issues.label_list(tenant=tenant, label="bug", status="open")
    assert meter.requests == 1
    assert refs(page) == ["WEB-1", "API-1"]  # by project key (descending), then number
    assert page.issues[0].title == "crash on save"  # the row comes from the entry
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open", project_key="API")) == ["API-1"]
    issues.issue_change_status(a, to="closed")
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == ["API-1"]
    assert refs(issues.label_list(tenant=tenant, label="bug", status="closed")) == ["WEB-1"]
    edit(b, labels=["feature", "bug"], title="dark mode toggle")
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == ["WEB-2", "API-1"]
    assert issues.label_list(tenant=tenant, label="bug", status="open").issues[0].title == "dark mode toggle"
    issues.issue_tombstone(c, by="owner")
    assert refs(issues.label_list(tenant=tenant, label="bug", status="open")) == ["WEB-2"]
    assert not [sort for sort in entries(tenant) if sort.endswith("API#000000000001")]


def test_each_label_has_its_own_key_and_the_team_registry_names_each_label_once(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    create(tenant, "WEB", "one", labels=["bug", "ui"])
    create(tenant, "WEB", "two", labels=["bug"])
    keys = {
        item["lk"]["S"]
        for key in (labels.label_key(tenant, "bug"), labels.label_key(tenant, "ui"))
        for item in labels.LabelEntry._get_connection().query(key, consistent_read=True)["Items"]
    }
    assert keys == {f"{tenant}#bug", f"{tenant}#ui"}  # no entry under the team's own key
    assert labels.team_labels(tenant) == ["bug", "ui"]
    labels.registry_forget()  # a new process: it reads the registry (0.5 RCU) and writes nothing
    with capacity.measure() as meter:
        labels.registry_ensure(tenant, ["bug"])
    assert (meter.rcu, meter.wcu) == (0.5, 0)


def test_a_status_change_moves_label_entries_outside_a_transaction_13_wcu(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB")
    issue = create(tenant, "WEB", "crash when saving draft offline twice", labels=["bug", "ui"], assignee="ann")
    with capacity.measure() as meter:
        issues.issue_change_status(issue, to="in_progress")
    # the issue 1 + four list-index entries moved (2 each) + two label entries moved (a delete and a put: 2 each)
    assert meter.wcu == 1 + 4 * 2 + 2 * 2
    assert entries(tenant) == [f"bug#in_progress#WEB#{1:012d}", f"ui#in_progress#WEB#{1:012d}"]


def test_a_late_writer_of_an_older_version_changes_no_entry(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    issue = create(tenant, "WEB", "flaky", labels=["ci"])
    v1 = issues.issue_get(tenant=tenant, project_key="WEB", number=1, consistent=True)
    assert v1 is not None
    issues.issue_change_status(issue, to="closed")
    stale = labels.entries_for(_row(v1))  # the open entry of version 1, as a writer that stalled would put it
    assert [labels.entry_put(entry) for entry in stale.values()] == [True]  # no newer entry at that key ...
    closed = labels.entries_for(_row(issues.issue_get(tenant=tenant, project_key="WEB", number=1, consistent=True)))
    assert not labels.entry_delete(next(iter(closed.values())), 1)  # ... but a newer one is never removed
    assert entries(tenant) == [f"ci#closed#WEB#{1:012d}", f"ci#open#WEB#{1:012d}"]
    fixed = issues.issue_labels_reconcile(tenant=tenant, project_key="WEB", number=1)
    assert (fixed.put, fixed.deleted) == (0, 1)  # the reconcile (the change-event task's) removes the stale one
    assert entries(tenant) == [f"ci#closed#WEB#{1:012d}"]
    again = issues.issue_labels_reconcile(tenant=tenant, project_key="WEB", number=1)
    assert (again.put, again.deleted) == (0, 0)


def test_the_reconcile_writes_entries_a_dead_writer_left_out(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    issue = create(tenant, "WEB", "slow page", labels=["perf", "web"])
    for entry in labels.entries_for(_row(issue)).values():  # as if the writer died after the issue's update
        labels.LabelEntry._get_connection().delete_item(entry["lk"]["S"], entry["s"]["S"])
    assert entries(tenant) == []
    with capacity.measure() as meter:
        fixed = issues.issue_labels_reconcile(tenant=tenant, project_key="WEB", number=1)
    assert (fixed.checked, fixed.put, fixed.deleted) == (8, 2, 0)
    assert meter.wcu == 2
    assert refs(issues.label_list(tenant=tenant, label="perf", status="open")) == ["WEB-1"]


def _row(issue: IssueItem | None) -> labels.IssueRow:
    assert issue is not None
    return issue_row(issue)


def test_a_stale_edit_changes_neither_the_issue_nor_its_entries(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    issue = create(tenant, "WEB", "flaky test", labels=["ci"])
    stale = issues.issue_get(tenant=tenant, project_key="WEB", number=1, consistent=True)
    assert stale is not None
    edit(issue, labels=["ci", "urgent"])
    before = entries(tenant)
    with pytest.raises(ChangedSinceRead):
        edit(stale, labels=["docs"], title="something else")
    assert entries(tenant) == before
    assert f"docs#open#WEB#{1:012d}" not in before


def test_a_tombstone_leaves_every_list(tenant: str, make_project: MakeProject) -> None:
    make_project("WEB")
    issue = create(tenant, "WEB", "remove me", labels=["x"], assignee="alice")
    issues.issue_tombstone(issue, by="owner")
    assert refs(issues.status_list(tenant=tenant, project_key="WEB", status="open")) == []
    assert refs(issues.status_list(tenant=tenant, status="open")) == []
    assert refs(issues.status_list(tenant=tenant, assignee="alice", status="open")) == []
    assert entries(tenant) == []


def test_a_writer_overtaken_by_a_newer_change_reconciles_its_entries(
    tenant: str, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ddbmodels.issues import writes

    make_project("WEB")
    issue = create(tenant, "WEB", "flaky deploy", labels=["ci"])
    real = writes.entries_move
    raced: list[int] = []

    def overtaken(before: dict, after: dict, *, version: int) -> tuple[int, int]:  # type: ignore[type-arg]
        if not raced:  # between A's update and its entries, B reopens the issue and writes its entries
            raced.append(version)
            newer = issues.issue_get(tenant=tenant, project_key="WEB", number=1, consistent=True)
            assert newer is not None
            issues.issue_change_status(newer, to="open")
        return real(before, after, version=version)

    monkeypatch.setattr(writes, "entries_move", overtaken)
    issues.issue_change_status(issue, to="closed")  # A: v2 closed; its entries land after B's v3 open
    assert raced == [2]
    # A's put of "closed" found no entry there and landed; its delete of "open" was refused (B's v3):
    # the refusal made A reconcile, so the stale "closed" entry is gone again
    assert entries(tenant) == [f"ci#open#WEB#{1:012d}"]
    assert refs(issues.label_list(tenant=tenant, label="ci", status="open")) == ["WEB-1"]
