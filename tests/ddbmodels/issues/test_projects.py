"""Projects on DynamoDB Local: unique keys, per-tenant listing, the sparse index, issue counts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels import issues
from ddbmodels.core.errors import AlreadyExists, NotFound
from ddbmodels.issues.model import STATUSES, CollectionItem, IssueItem, ProjectItem, collection_key
from tests.ddbmodels.conftest import REPORTER, load, unique_tenant

pytestmark = pytest.mark.ddblocal

MakeProject = Callable[..., ProjectItem]
MakeIssues = Callable[..., list[IssueItem]]


def index_entries_of(*tenants: str) -> list[tuple[str, str]]:
    """The (tenant, key) pairs of the sparse index that belong to ``tenants`` (others share the table)."""
    return [entry for entry in issues.all_project_keys() if entry[0] in tenants]


def test_creating_a_project_twice_with_the_same_key_raises_already_exists_and_keeps_the_first(
    tenant: str, make_project: MakeProject
) -> None:
    make_project("WEB", name="The first")

    with pytest.raises(AlreadyExists) as raised:
        make_project("WEB", name="The second")

    assert raised.value.code == "already_exists"
    assert raised.value.context == {"tenant": tenant, "key": "WEB"}
    stored = issues.project_get(tenant=tenant, key="WEB")
    assert stored is not None
    assert (stored.name, stored.version) == ("The first", 1)


def test_the_same_project_key_in_two_tenants_is_two_projects(tenant: str, make_project: MakeProject) -> None:
    other = unique_tenant()
    make_project("WEB", name="Ours")
    make_project("WEB", name="Theirs", of_tenant=other)

    ours, theirs = issues.project_get(tenant=tenant, key="WEB"), issues.project_get(tenant=other, key="WEB")
    assert ours is not None
    assert theirs is not None
    assert (ours.name, theirs.name) == ("Ours", "Theirs")


@pytest.mark.parametrize(("tenant_slug", "key"), [("Upper", "WEB"), ("ok", "web"), ("ok", "W"), ("ok", "1AB")])
def test_an_invalid_tenant_or_key_is_refused_before_anything_is_written(tenant_slug: str, key: str) -> None:
    with pytest.raises(ValueError, match="invalid tenant"):
        issues.project_create(tenant=tenant_slug, key=key, name="x", created_by=REPORTER)
    assert issues.project_get(tenant=tenant_slug, key=key) is None


def test_project_list_returns_only_the_tenants_projects_sorted_by_key(tenant: str, make_project: MakeProject) -> None:
    other = unique_tenant()
    for key in ("ZED", "ALPHA", "MID", "B2"):
        make_project(key)
    for key in ("AAA", "ZZZ"):
        make_project(key, of_tenant=other)

    ours = issues.project_list(tenant=tenant)
    theirs = issues.project_list(tenant=other)

    assert [p.project_key for p in ours] == ["ALPHA", "B2", "MID", "ZED"]
    assert [p.name for p in ours] == ["Project ALPHA", "Project B2", "Project MID", "Project ZED"]
    assert {p.tenant for p in ours} == {tenant}
    assert all(isinstance(p, ProjectItem) for p in ours)
    assert [p.project_key for p in theirs] == ["AAA", "ZZZ"]
    assert issues.project_keys(tenant=tenant) == ["ALPHA", "B2", "MID", "ZED"]
    assert issues.project_list(tenant=unique_tenant()) == []


def test_the_sparse_index_holds_exactly_one_entry_per_project_and_never_an_issue(
    tenant: str, make_project: MakeProject, make_issues: MakeIssues
) -> None:
    other = unique_tenant()
    make_project("WEB")
    make_project("API")
    make_project("WEB", of_tenant=other)
    make_issues(5, key="WEB")
    make_issues(3, key="API")
    issues.issue_tombstone(load(tenant, 2, "WEB"), by="admin")

    entries = index_entries_of(tenant, other)

    assert entries == sorted([(tenant, "API"), (tenant, "WEB"), (other, "WEB")])
    everything = issues.all_project_keys()
    assert len(everything) == len(set(everything)), "one index entry per project, table-wide"
    # The issues carry no index keys at all.
    for item in CollectionItem.query(collection_key(tenant, "WEB"), CollectionItem.number > 0, consistent_read=True):
        assert isinstance(item, IssueItem)
        assert (item.gsi_tenant, item.gsi_project_key) == (None, None)


def test_project_counts_refresh_counts_live_issues_by_status(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(8)
    for number, to in [(1, "in_progress"), (2, "in_progress"), (3, "resolved"), (4, "closed"), (5, "closed")]:
        issues.issue_change_status(load(tenant, number), to=to)
    issues.issue_tombstone(load(tenant, 5), by="admin")  # closed, then deleted
    issues.issue_tombstone(load(tenant, 6), by="admin")  # open, then deleted
    before = issues.project_get(tenant=tenant, key="WEB")
    assert before is not None
    assert before.live_count() == 0

    counts = issues.project_counts_refresh(tenant=tenant, key="WEB")

    assert counts == {"open": 2, "in_progress": 2, "resolved": 1, "closed": 1}
    assert list(counts) == list(STATUSES)
    stored = issues.project_get(tenant=tenant, key="WEB")
    assert stored is not None
    assert stored.live_count() == 6
    assert {status: stored.live_count(status) for status in STATUSES} == counts
    assert stored.counted_at is not None
    # A refresh leaves the version alone, so an editor holding the project is not made stale.
    assert (stored.version, stored.name) == (before.version, before.name)


def test_project_counts_refresh_of_a_project_without_issues_is_all_zeros(tenant: str, web_project: ProjectItem) -> None:
    assert issues.project_counts_refresh(tenant=tenant, key="WEB") == dict.fromkeys(STATUSES, 0)


def test_project_counts_refresh_of_a_missing_project_raises_not_found_and_creates_nothing(tenant: str) -> None:
    with pytest.raises(NotFound):
        issues.project_counts_refresh(tenant=tenant, key="NOPE")
    assert list(CollectionItem.query(collection_key(tenant, "NOPE"), consistent_read=True)) == []


def test_project_get_returns_none_for_a_missing_project(tenant: str) -> None:
    assert issues.project_get(tenant=tenant, key="NOPE") is None
