"""The comments table on DynamoDB Local: added exactly once, edited and deleted by version, paged at index cost."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from pynamodb.exceptions import PynamoDBException

from ddbmodels import comments, issues
from ddbmodels.attachments import new_attachment_id
from ddbmodels.comments import CommentItem
from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead, DomainError, InvalidInput, IssueDeleted
from ddbmodels.core.keys import utcnow
from ddbmodels.idempotency import record_get
from ddbmodels.issues import IssueItem
from tests import dynamodb_faults

pytestmark = pytest.mark.ddblocal

LOST_ANSWERS_SEED = 23  # the shared ``lost_answers`` fixture (tests/conftest.py) loses 30% of write answers
ALICE, BOB = "alice", "bob"


def add(tenant: str, body: str, *, author: str = ALICE, key: str | None = None, number: int = 1) -> comments.Added:
    return comments.comment_add(
        tenant=tenant, project_key="WEB", number=number, author=author, body=body, idempotency_key=key
    )


def stored(tenant: str, number: int = 1) -> list[CommentItem]:
    """Every comment of the issue, read consistently, oldest first (the test's truth)."""
    return list(CommentItem.query(comments.issue_stream(tenant, "WEB", number), consistent_read=True))


def test_a_comment_is_stored_in_its_issue_collection_oldest_first(tenant: str) -> None:
    first = add(tenant, "first").comment
    second = add(tenant, "second", author=BOB).comment
    add(tenant, "elsewhere", number=2)

    assert [(c.author, c.body) for c in stored(tenant)] == [(ALICE, "first"), (BOB, "second")]
    assert first.stream == f"{tenant}#WEB#1"
    assert first.key < second.key
    assert comments.SORT_KEY_RE.fullmatch(first.key)
    assert (int(first.version), first.edited) == (1, False)
    assert first.created_at.tzinfo is not None
    assert comments.sort_key_of(comments.comment_id(first.key)) == first.key


def test_an_empty_or_too_long_body_is_refused_and_nothing_is_written(tenant: str) -> None:
    with capacity.measure() as meter:
        for body in ("", "  \n\n ", "x" * (comments.BODY_MAX + 1)):
            with pytest.raises(InvalidInput):
                add(tenant, body)
    assert meter.requests == 0
    assert stored(tenant) == []
    assert add(tenant, "x" * comments.BODY_MAX).comment.body == "x" * comments.BODY_MAX
    assert add(tenant, "\r\nfrom a browser\r\nline two\r\n").comment.body == "from a browser\nline two"


def test_a_comment_whose_put_answer_is_lost_is_added_once_without_a_key(tenant: str) -> None:
    answers = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"PutItem"}), rate=1.0, limit=1))
    try:
        added = add(tenant, "said once")
    finally:
        dynamodb_faults.disarm_all()
    assert answers.lost == 1
    assert not added.replayed
    assert [c.body for c in stored(tenant)] == ["said once"]
    assert int(added.comment.version) == 1


def test_the_same_key_adds_one_comment_and_names_it_again(tenant: str) -> None:
    key = new_attachment_id()
    first = add(tenant, "hello", key=key)
    with capacity.measure() as meter:
        again = add(tenant, "hello (sent twice)", key=key)
    assert (first.replayed, again.replayed) == (False, True)
    assert again.comment.key == first.comment.key
    assert again.comment.body == "hello"
    assert [c.body for c in stored(tenant)] == ["hello"]
    assert meter.conditional_failures == 1  # the refused transaction, then 2 consistent reads
    assert meter.rcu == 2.0


def test_comments_are_added_exactly_once_under_lost_answers(
    tenant: str, lost_answers: dynamodb_faults.LostAnswers
) -> None:
    people = 16
    keys = [new_attachment_id() for _ in range(people)]

    def submit(i: int) -> comments.Added:
        for _ in range(8):  # a person sends the same form again after an error page
            try:
                return add(tenant, f"comment {i}", key=keys[i])
            except (DomainError, PynamoDBException):
                continue
        raise AssertionError(f"comment {i} never went through")

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(submit, range(people)))
    with ThreadPoolExecutor(8) as pool:
        again = list(pool.map(submit, range(people)))

    assert lost_answers.lost > people // 4  # the fault really happened
    bodies = sorted(c.body for c in stored(tenant))
    assert bodies == sorted(f"comment {i}" for i in range(people))  # one each, none twice
    assert [r.comment.body for r in results] == [f"comment {i}" for i in range(people)]
    assert [a.comment.key for a in again] == [r.comment.key for r in results]
    assert all(a.replayed for a in again)


def test_an_edit_on_the_loaded_version_saves_and_a_stale_one_is_refused(tenant: str) -> None:
    comment = add(tenant, "draft").comment
    mine = comments.comment_get(stream=comment.stream, key=comment.key, consistent=True)
    other_tab = comments.comment_get(stream=comment.stream, key=comment.key, consistent=True)
    assert mine is not None
    assert other_tab is not None

    with capacity.measure() as meter:
        saved = comments.comment_edit(mine, body="final", by=ALICE)
    assert (saved.body, int(saved.version), saved.edited) == ("final", 2, True)
    assert meter.wcu == 1.0

    with pytest.raises(ChangedSinceRead) as refused:
        comments.comment_edit(other_tab, body="from the stale tab", by=ALICE)
    assert refused.value.current == "final"
    assert [(c.body, int(c.version)) for c in stored(tenant)] == [("final", 2)]


def test_only_the_author_edits_or_deletes(tenant: str) -> None:
    comment = add(tenant, "mine").comment
    with pytest.raises(InvalidInput):
        comments.comment_edit(comment, body="theirs", by=BOB)
    with pytest.raises(InvalidInput):
        comments.comment_delete(comment, by=BOB)
    assert [c.body for c in stored(tenant)] == ["mine"]


def test_a_delete_on_a_stale_version_is_refused_and_on_the_current_one_removes_the_item(tenant: str) -> None:
    comment = add(tenant, "to go").comment
    stale = comments.comment_get(stream=comment.stream, key=comment.key, consistent=True)
    assert stale is not None
    comments.comment_edit(comment, body="edited meanwhile", by=ALICE)

    with pytest.raises(ChangedSinceRead):
        comments.comment_delete(stale, by=ALICE)
    assert [c.body for c in stored(tenant)] == ["edited meanwhile"]

    comments.comment_delete(comment, by=ALICE)
    assert stored(tenant) == []
    comments.comment_delete(comment, by=ALICE)  # already gone: what was asked is done, nothing raised


def test_a_delete_whose_answer_is_lost_still_succeeds(tenant: str) -> None:
    comment = add(tenant, "bye").comment
    dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"DeleteItem"}), rate=1.0, limit=1))
    try:
        comments.comment_delete(comment, by=ALICE)
    finally:
        dynamodb_faults.disarm_all()
    assert stored(tenant) == []


def test_an_edit_whose_answer_is_lost_is_our_own_success(tenant: str) -> None:
    comment = add(tenant, "v1").comment
    dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"UpdateItem"}), rate=1.0, limit=1))
    try:
        saved = comments.comment_edit(comment, body="v2", by=ALICE)
    finally:
        dynamodb_faults.disarm_all()
    assert (saved.body, int(saved.version)) == ("v2", 2)
    assert [(c.body, int(c.version)) for c in stored(tenant)] == [("v2", 2)]


PageOf = Callable[..., comments.CommentPage]


def test_pages_go_oldest_first_both_ways_with_one_query_each(tenant: str) -> None:
    written = [add(tenant, f"c{i}").comment.key for i in range(7)]
    stream = comments.issue_stream(tenant, "WEB", 1)

    def bodies(page: comments.CommentPage) -> list[str]:
        return [c.body for c in page.comments]

    with capacity.measure() as meter:
        first = comments.comment_page(stream=stream, size=3)
    assert bodies(first) == ["c0", "c1", "c2"]
    assert (first.older_than, first.newer_than) == (None, written[2])
    assert meter.requests == 1
    assert meter.rcu == 0.5  # 4 small items read (size + 1): one 4 KB unit, eventually consistent

    second = comments.comment_page(stream=stream, size=3, after=first.newer_than)
    assert bodies(second) == ["c3", "c4", "c5"]
    assert (second.older_than, second.newer_than) == (written[3], written[5])
    third = comments.comment_page(stream=stream, size=3, after=second.newer_than)
    assert bodies(third) == ["c6"]
    assert (third.older_than, third.newer_than) == (written[6], None)

    back = comments.comment_page(stream=stream, size=3, before=third.older_than)
    assert bodies(back) == ["c3", "c4", "c5"]
    assert (back.older_than, back.newer_than) == (written[3], written[5])
    start = comments.comment_page(stream=stream, size=3, before=written[3])
    assert bodies(start) == ["c0", "c1", "c2"]
    assert start.older_than is None

    latest = comments.comment_page(stream=stream, size=3, latest=True)
    assert bodies(latest) == ["c4", "c5", "c6"]
    assert (latest.older_than, latest.newer_than) == (written[4], None)
    assert comments.comment_page(stream=comments.issue_stream(tenant, "WEB", 9)).comments == []


def test_a_sort_key_collision_is_never_silent(tenant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first = add(tenant, "one").comment
    monkeypatch.setattr("ddbmodels.comments.writes.new_sort_key", lambda _when: first.key)
    with pytest.raises(AlreadyExists):
        add(tenant, "two")
    assert [c.body for c in stored(tenant)] == ["one"]


def test_deleting_all_of_an_issues_comments_goes_a_hundred_at_a_time_and_leaves_other_issues(tenant: str) -> None:
    """``comments_delete_all`` (deleting an issue, issue 20 finding 9): more than one batch, counted, others kept."""
    stream = comments.issue_stream(tenant, "WEB", 1)
    now = utcnow()
    many = [
        CommentItem(stream, comments.new_sort_key(now + timedelta(milliseconds=i)), author=ALICE, body=f"c{i}")
        for i in range(130)
    ]
    comments.comments_put_many(many)
    add(tenant, "on WEB-2", number=2)
    assert comments.comment_count(stream=stream) == 130

    with capacity.measure() as meter:
        assert comments.comments_delete_all(stream=stream) == 130
    assert stored(tenant) == []
    assert [c.body for c in stored(tenant, number=2)] == ["on WEB-2"]
    assert meter.by_pattern["comments.delete_all"].requests == 3 + 6  # 3 Queries (100, 30, none), 6 batches of ≤ 25
    assert comments.comments_delete_all(stream=stream) == 0  # again: nothing left, nothing done


def add_to_live(tenant: str, body: str, *, number: int = 1, key: str | None = None) -> comments.Added:
    """A comment as the site adds it: written only while issue WEB-``number`` is not a tombstone."""
    check = issues.issue_live_check(tenant=tenant, project_key="WEB", number=number)
    return comments.comment_add(
        tenant=tenant, project_key="WEB", number=number, author=ALICE, body=body, idempotency_key=key, issue_check=check
    )


def test_a_comment_on_a_deleted_issue_is_refused_and_writes_nothing(
    tenant: str, web_issues: Callable[..., list[IssueItem]]
) -> None:
    first, _ = web_issues(2)
    key = new_attachment_id()
    added = add_to_live(tenant, "before the delete", key=key)
    issues.issue_tombstone(first, by=BOB)

    refused_key = new_attachment_id()
    with capacity.measure() as meter:
        for idempotency_key in (None, refused_key):
            with pytest.raises(IssueDeleted):
                add_to_live(tenant, "after the delete", key=idempotency_key)
        with pytest.raises(IssueDeleted):  # a number never given is no issue either
            add_to_live(tenant, "on no issue", number=9)
    again = add_to_live(tenant, "before the delete", key=key)  # the first form sent again: still its success

    assert [c.body for c in stored(tenant)] == ["before the delete"]
    assert stored(tenant, 9) == []
    assert record_get(tenant=tenant, kind=comments.idempotency_kind("WEB", 1), key=refused_key) is None
    assert meter.conditional_failures == 3
    assert (again.replayed, again.comment.key) == (True, added.comment.key)
    assert [c.body for c in stored(tenant, 2)] == []
    assert add_to_live(tenant, "on a live issue", number=2).comment.body == "on a live issue"


def test_a_checked_comment_whose_answer_is_lost_is_added_once(
    tenant: str, web_issues: Callable[..., list[IssueItem]]
) -> None:
    web_issues(1)
    answers = dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"TransactWriteItems"}), rate=1.0, limit=2))
    try:
        without_key = add_to_live(tenant, "said once")
        with_key = add_to_live(tenant, "said once, with a key", key=new_attachment_id())
    finally:
        dynamodb_faults.disarm_all()
    assert answers.lost == 2
    assert (without_key.replayed, with_key.replayed) == (False, False)
    assert [c.body for c in stored(tenant)] == ["said once", "said once, with a key"]


def test_what_a_checked_comment_costs_is_what_the_docstring_says(
    tenant: str, web_issues: Callable[..., list[IssueItem]]
) -> None:
    web_issues(1)
    with capacity.measure() as meter:
        add_to_live(tenant, "small")
    with capacity.measure() as keyed:
        add_to_live(tenant, "small, with a key", key=new_attachment_id())
    assert (meter.requests, meter.wcu) == (1, 4.0)  # check 2 + comment 2 (a <= 1 KB issue and comment)
    assert (keyed.requests, keyed.wcu) == (1, 8.0)  # + the idempotency record (6 without the check)
