"""Issue edits on DynamoDB Local: optimistic locking, the status workflow, tombstones, pages."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from ddbmodels import TRANSITIONS, issues
from ddbmodels.core.errors import ChangedSinceRead, InvalidTransition
from ddbmodels.issues.model import STATUSES, IssueItem, ProjectItem
from ddbmodels.patterns.pagination import NEWER, Page
from tests.ddbmodels.conftest import REPORTER, Copies, load

pytestmark = pytest.mark.ddblocal

MakeProject = Callable[..., ProjectItem]
MakeIssues = Callable[..., list[IssueItem]]


def snapshot(issue: IssueItem) -> dict[str, object]:
    """Everything stored about an issue, as plain values."""
    return {name: getattr(issue, name) for name in IssueItem.get_attributes()}


def numbers(page: Page[IssueItem]) -> list[int]:
    return [int(item.number) for item in page.items]


def shape(page: Page[IssueItem]) -> tuple[list[int], int | None, int | None]:
    return numbers(page), page.older_than, page.newer_than


def edit(issue: IssueItem, **changes: object) -> IssueItem:
    fields: dict[str, object] = {
        "title": issue.title,
        "description": issue.description or "",
        "priority": issue.priority,
        "assignee": issue.assignee,
        "labels": issue.labels or (),
    }
    fields.update(changes)
    return issues.issue_update(issue, **fields)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- optimistic locking


def test_of_two_copies_the_first_update_wins_and_the_second_raises_changed_since_read_changing_nothing(
    tenant: str, two_copies: Copies
) -> None:
    first, second = two_copies
    assert first.version == second.version == 1

    edit(first, title="first wins", labels=["ui"], priority="high")
    assert first.version == 2  # the copy that won holds what was stored

    with pytest.raises(ChangedSinceRead) as raised:
        edit(second, title="second loses", assignee="someone")
    assert raised.value.code == "changed_since_read"

    stored = load(tenant, 1)
    assert snapshot(stored) == snapshot(first)
    assert (stored.title, stored.priority, stored.labels, stored.assignee, stored.version) == (
        "first wins",
        "high",
        {"ui"},
        None,
        2,
    )


def test_a_reloaded_copy_can_update_again_after_a_changed_since_read_refusal(tenant: str, two_copies: Copies) -> None:
    first, second = two_copies
    edit(first, title="one")
    with pytest.raises(ChangedSinceRead):
        edit(second, title="two")

    edit(load(tenant, 1), title="two, after reloading")

    stored = load(tenant, 1)
    assert (stored.title, stored.version) == ("two, after reloading", 3)


def test_an_update_clears_the_optional_fields_it_is_given_empty(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1, description="long text", assignee="ann", labels=["a", "b"])
    edit(load(tenant, 1), description="", assignee=None, labels=[])

    stored = load(tenant, 1)
    assert (stored.description, stored.assignee, stored.labels) == (None, None, None)


# ---------------------------------------------------------------------------- status workflow


def test_every_allowed_status_transition_works_and_bumps_the_version(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    path = ["in_progress", "open", "resolved", "open", "closed", "open"]
    path += ["in_progress", "resolved", "closed", "open", "in_progress", "closed"]
    seen = set()
    issue = load(tenant, 1)
    for version, to in enumerate(path, start=2):
        seen.add((issue.status, to))
        issues.issue_change_status(issue, to=to)
        stored = load(tenant, 1)
        assert (stored.status, stored.version) == (to, version)
        assert (issue.status, issue.version) == (to, version)
    # The path walks every edge of the workflow.
    assert seen == {(source, target) for source, targets in TRANSITIONS.items() for target in targets}


@pytest.mark.parametrize(
    ("start", "to"),
    [
        ("open", "open"),
        ("resolved", "in_progress"),
        ("closed", "resolved"),
        ("closed", "in_progress"),
        ("closed", "closed"),
        ("open", "deleted"),
    ],
)
def test_a_disallowed_status_transition_raises_invalid_transition_and_changes_nothing(
    tenant: str, web_issues: MakeIssues, start: str, to: str
) -> None:
    web_issues(1)
    issue = load(tenant, 1)
    if start != "open":
        issues.issue_change_status(issue, to=start)
    before = snapshot(load(tenant, 1))

    with pytest.raises(InvalidTransition) as raised:
        issues.issue_change_status(issue, to=to)

    assert raised.value.code == "invalid_transition"
    assert raised.value.context == {"current": start, "to": to}
    assert snapshot(load(tenant, 1)) == before
    assert issue.status == start


def test_the_transition_table_only_names_known_statuses() -> None:
    assert set(TRANSITIONS) == set(STATUSES)
    for source, targets in TRANSITIONS.items():
        assert targets <= set(STATUSES)
        assert source not in targets


def test_a_status_change_on_a_stale_copy_raises_changed_since_read_and_changes_nothing(
    tenant: str, two_copies: Copies
) -> None:
    fresh, stale = two_copies
    issues.issue_change_status(fresh, to="closed")
    after_first = snapshot(load(tenant, 1))

    # The stale copy still says "open", so the move looks allowed; the stored item refuses it.
    with pytest.raises(ChangedSinceRead):
        issues.issue_change_status(stale, to="in_progress")

    assert snapshot(load(tenant, 1)) == after_first
    assert load(tenant, 1).status == "closed"


def test_a_status_change_on_a_copy_stale_only_by_an_edit_raises_changed_since_read(
    tenant: str, two_copies: Copies
) -> None:
    editor, mover = two_copies
    edit(editor, title="edited meanwhile")

    with pytest.raises(ChangedSinceRead):
        issues.issue_change_status(mover, to="resolved")

    stored = load(tenant, 1)
    assert (stored.status, stored.title, stored.version) == ("open", "edited meanwhile", 2)


# ---------------------------------------------------------------------------- tombstones


def test_a_tombstone_hides_the_content_and_keeps_the_number(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(3, description="secret details", assignee="ann", labels=["x", "y"])

    issues.issue_tombstone(load(tenant, 2), by="admin")

    gone = load(tenant, 2)
    assert gone.is_tombstone
    assert gone.deleted_by == "admin"
    assert gone.deleted_at is not None
    assert gone.title == "(deleted)"
    assert (gone.description, gone.assignee, gone.labels) == (None, None, None)
    assert gone.reference == "WEB-2"
    assert issues.issue_numbers(tenant=tenant, project_key="WEB") == [1, 2, 3]
    neighbour = load(tenant, 1)
    assert (neighbour.title, neighbour.description) == ("issue 1", "secret details")


def test_the_top_issue_tombstoned_never_gives_its_number_again(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(3)
    issues.issue_tombstone(load(tenant, 3), by="admin")

    claimed = issues.issue_create(tenant=tenant, project_key="WEB", title="next", reporter=REPORTER)

    assert claimed.number == 4
    assert load(tenant, 3).is_tombstone


def test_a_tombstone_cannot_be_edited_moved_or_deleted_again(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(1)
    issues.issue_tombstone(load(tenant, 1), by="admin")
    before = snapshot(load(tenant, 1))

    with pytest.raises(InvalidTransition):
        issues.issue_tombstone(load(tenant, 1), by="admin")
    with pytest.raises(InvalidTransition):
        issues.issue_change_status(load(tenant, 1), to="closed")
    with pytest.raises(ChangedSinceRead):  # the update is conditioned on "not deleted"
        edit(load(tenant, 1), title="resurrected")

    assert snapshot(load(tenant, 1)) == before


def test_tombstoning_a_stale_copy_raises_changed_since_read(tenant: str, two_copies: Copies) -> None:
    fresh, stale = two_copies
    edit(fresh, title="edited")

    with pytest.raises(ChangedSinceRead):
        issues.issue_tombstone(stale, by="admin")

    stored = load(tenant, 1)
    assert not stored.is_tombstone
    assert stored.title == "edited"


def test_issue_get_returns_none_for_the_static_item_and_for_missing_numbers(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(1)
    assert issues.issue_get(tenant=tenant, project_key="WEB", number=0) is None
    assert issues.issue_get(tenant=tenant, project_key="WEB", number=2) is None
    assert issues.issue_get(tenant=tenant, project_key="NOPE", number=1) is None
    assert issues.issue_get(tenant=tenant, project_key="WEB", number=1) is not None


# ---------------------------------------------------------------------------- pages


def test_sixty_issues_come_in_pages_of_25_25_10_newest_first(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(60)

    first = issues.issue_page(tenant=tenant, project_key="WEB")
    second = issues.issue_page(tenant=tenant, project_key="WEB", after=first.older_than)
    third = issues.issue_page(tenant=tenant, project_key="WEB", after=second.older_than)

    assert shape(first) == (list(range(60, 35, -1)), 36, None)
    assert shape(second) == (list(range(35, 10, -1)), 11, 35)
    assert shape(third) == (list(range(10, 0, -1)), None, 10)
    assert [item.title for item in third.items] == [f"issue {n}" for n in range(10, 0, -1)]


def test_next_and_previous_cursors_round_trip_exactly(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(60)
    pages = [issues.issue_page(tenant=tenant, project_key="WEB")]
    while pages[-1].older_than is not None:
        pages.append(issues.issue_page(tenant=tenant, project_key="WEB", after=pages[-1].older_than))
    assert len(pages) == 3

    for newer, older in itertools.pairwise(pages):
        assert older.newer_than is not None
        back = issues.issue_page(tenant=tenant, project_key="WEB", after=older.newer_than, direction=NEWER)
        assert shape(back) == shape(newer)
        assert older.newer_than == numbers(older)[0]
        assert newer.older_than == numbers(newer)[-1]


def test_a_page_size_that_divides_the_collection_ends_without_an_empty_page(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(10)
    first = issues.issue_page(tenant=tenant, project_key="WEB", size=5)
    second = issues.issue_page(tenant=tenant, project_key="WEB", size=5, after=first.older_than)

    assert shape(first) == ([10, 9, 8, 7, 6], 6, None)
    assert shape(second) == ([5, 4, 3, 2, 1], None, 5)


def test_the_status_filter_returns_full_pages_even_when_matching_issues_are_sparse(
    tenant: str, web_issues: MakeIssues
) -> None:
    web_issues(60)
    for number in range(6, 61, 6):  # 6, 12, … 60: one issue in six is in progress
        issues.issue_change_status(load(tenant, number), to="in_progress")
    issues.issue_tombstone(load(tenant, 30), by="admin")  # in progress, then deleted
    issues.issue_tombstone(load(tenant, 45), by="admin")  # open, deleted

    def page(**kwargs: object) -> Page[IssueItem]:
        return issues.issue_page(tenant=tenant, project_key="WEB", status="in_progress", size=4, **kwargs)  # type: ignore[arg-type]

    first = page()
    second = page(after=first.older_than)
    third = page(after=second.older_than)

    assert shape(first) == ([60, 54, 48, 42], 42, None)
    assert shape(second) == ([36, 24, 18, 12], 12, 36)
    assert shape(third) == ([6], None, 6)
    assert all(item.status == "in_progress" for p in (first, second, third) for item in p.items)
    # …and back again, with the same filter.
    assert shape(page(after=third.newer_than, direction=NEWER)) == shape(second)
    assert shape(page(after=second.newer_than, direction=NEWER)) == shape(first)


def test_tombstoned_issues_are_never_listed(tenant: str, web_issues: MakeIssues) -> None:
    web_issues(60)
    deleted = {1, 10, 11, 25, 26, 36, 37, 59, 60}
    for number in sorted(deleted):
        issues.issue_tombstone(load(tenant, number), by="admin")

    listed: list[int] = []
    page = issues.issue_page(tenant=tenant, project_key="WEB")
    pages = [page]
    while page.older_than is not None:
        page = issues.issue_page(tenant=tenant, project_key="WEB", after=page.older_than)
        pages.append(page)
    for p in pages:
        listed.extend(numbers(p))

    assert [len(p.items) for p in pages] == [25, 25, 1]
    assert listed == [n for n in range(60, 0, -1) if n not in deleted]
    open_only = issues.issue_page(tenant=tenant, project_key="WEB", status="open", size=100)
    assert set(numbers(open_only)).isdisjoint(deleted)
    assert len(open_only.items) == 60 - len(deleted)


def test_a_project_without_issues_has_one_empty_page(tenant: str, web_project: ProjectItem) -> None:
    assert shape(issues.issue_page(tenant=tenant, project_key="WEB")) == ([], None, None)
    assert shape(issues.issue_page(tenant=tenant, project_key="NOPE")) == ([], None, None)


@pytest.mark.parametrize("after", [1, 0, -5])
def test_a_cursor_at_or_below_the_first_issue_gives_an_empty_older_page(
    tenant: str, web_issues: MakeIssues, after: int
) -> None:
    web_issues(3)
    assert shape(issues.issue_page(tenant=tenant, project_key="WEB", after=after)) == ([], None, None)
