"""Exactly once under lost answers: many submitters while 30% of write answers never come back.

``tests/dynamodb_faults.LostAnswers`` lets each chosen write reach DynamoDB Local and then makes
botocore see a dropped connection, so botocore retries a write that already happened — what a
lost answer does against AWS. Every submitter acts like a person: when its call fails it submits
again with the same idempotency key, until it is told a result. Then the invariants: N
submissions store exactly N items, every number is unique (issue and gapless order numbers are
1..N), and every submitter was told its own item.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest
from pynamodb.exceptions import PynamoDBException

from ddbmodels import attachments, issues, orders, scores
from ddbmodels.attachments.flow import LocalBlobStore
from ddbmodels.core.errors import DomainError
from ddbmodels.issues.model import IssueItem, ProjectItem
from ddbmodels.orders.model import OrderItem
from ddbmodels.patterns.sequences import Claimed
from tests import dynamodb_faults
from tests.ddbmodels.conftest import REPORTER

pytestmark = pytest.mark.ddblocal

LOST_ANSWERS_SEED = 11  # the shared ``lost_answers`` fixture (tests/conftest.py) loses 30% of write answers
SUBMITTERS = 24
THREADS = 8
RESUBMITS = 8  # a person gives up after this many failed submissions; none should need half
R = TypeVar("R")


def new_key() -> str:
    return attachments.new_attachment_id()  # what the forms sign: a ULID


def submit(call: Callable[[str], R], key: str) -> tuple[R, list[str]]:
    """Call as a person would: on a failure (a 503 page), submit again with the same key. (result, failures)."""
    failures: list[str] = []
    while len(failures) < RESUBMITS:
        try:
            return call(key), failures
        except (DomainError, PynamoDBException) as error:
            failures.append(type(error).__name__)
    raise AssertionError(f"still failing after {RESUBMITS} submissions: {failures}")


def in_parallel(calls: list[Callable[[], R]]) -> list[R]:
    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_issues_are_created_once_each_numbered_one_to_n(
    tenant: str, make_project: Callable[..., ProjectItem], lost_answers: dynamodb_faults.LostAnswers
) -> None:
    make_project("LOST")

    def create(title: str) -> Callable[[str], Claimed[IssueItem]]:
        return lambda key: issues.issue_create(
            tenant=tenant, project_key="LOST", title=title, reporter=REPORTER, idempotency_key=key
        )

    keys = [new_key() for _ in range(SUBMITTERS)]
    results = in_parallel([lambda i=i: submit(create(f"issue {i}"), keys[i]) for i in range(SUBMITTERS)])

    assert lost_answers.lost > SUBMITTERS // 4  # the fault really happened
    told = [claimed.number for claimed, _ in results]
    assert sorted(told) == list(range(1, SUBMITTERS + 1))  # unique, gap-free, one each
    assert issues.issue_numbers(tenant=tenant, project_key="LOST") == list(range(1, SUBMITTERS + 1))
    for i, (claimed, _) in enumerate(results):  # each was told its own issue
        assert claimed.item.title == f"issue {i}"

    # The same form submitted again (back and submit, a double click): the first result, nothing new.
    again = in_parallel([lambda i=i: submit(create(f"issue {i} again"), keys[i]) for i in range(SUBMITTERS)])
    assert [claimed.number for claimed, _ in again] == told
    assert all(claimed.replayed for claimed, _ in again)
    assert issues.issue_numbers(tenant=tenant, project_key="LOST") == list(range(1, SUBMITTERS + 1))


def test_an_issue_whose_put_answer_is_lost_is_created_once_even_without_a_key(
    tenant: str, make_project: Callable[..., ProjectItem]
) -> None:
    make_project("ONE")
    dynamodb_faults.lose(dynamodb_faults.LostAnswers(frozenset({"PutItem"}), rate=1.0, limit=1))
    try:
        claimed = issues.issue_create(tenant=tenant, project_key="ONE", title="once", reporter=REPORTER)
    finally:
        dynamodb_faults.disarm_all()
    assert (claimed.number, claimed.replayed) == (1, False)
    assert issues.issue_numbers(tenant=tenant, project_key="ONE") == [1]


@pytest.mark.parametrize("mode", ["atomic", "gapless"])
def test_orders_are_placed_once_each_with_unique_numbers(
    tenant: str, mode: str, lost_answers: dynamodb_faults.LostAnswers
) -> None:
    counter = f"orders-{tenant}"

    def place(quantity: int) -> Callable[[str], Claimed[OrderItem]]:
        return lambda key: orders.order_place(
            customer=tenant,
            product="seats",
            quantity=quantity,
            delivery="standard",
            placed_by=REPORTER,
            mode=mode,
            counter=counter,
            idempotency_key=key,
        )

    keys = [new_key() for _ in range(SUBMITTERS)]
    results = in_parallel([lambda i=i: submit(place(i + 1), keys[i]) for i in range(SUBMITTERS)])

    assert lost_answers.lost > SUBMITTERS // 4
    told = [claimed.number for claimed, _ in results]
    assert len(set(told)) == SUBMITTERS
    stored = list(OrderItem.query(tenant, consistent_read=True))
    assert sorted(int(order.number) for order in stored) == sorted(told)  # exactly N, the ones told
    for i, (claimed, _) in enumerate(results):
        assert int(claimed.item.quantity) == i + 1
    if mode == "gapless":
        assert sorted(told) == list(range(1, SUBMITTERS + 1))

    again = in_parallel([lambda i=i: submit(place(i + 1), keys[i]) for i in range(SUBMITTERS)])
    assert [claimed.number for claimed, _ in again] == told
    assert len(list(OrderItem.query(tenant, consistent_read=True))) == SUBMITTERS


def test_attachments_are_attached_once_each(
    tenant: str,
    make_project: Callable[..., ProjectItem],
    tmp_path: Path,
    lost_answers: dynamodb_faults.LostAnswers,
) -> None:
    make_project("ATT")
    dynamodb_faults.disarm_all()
    issues.issue_create(tenant=tenant, project_key="ATT", title="files", reporter=REPORTER)
    dynamodb_faults.lose(lost_answers)
    store = LocalBlobStore(tmp_path / "media")

    def attach(i: int) -> Callable[[str], attachments.AttachmentItem]:
        def call(key: str) -> attachments.AttachmentItem:
            try:
                return attachments.attach(
                    store,
                    tenant=tenant,
                    project_key="ATT",
                    number=1,
                    filename=f"file-{i}.txt",
                    content=io.BytesIO(f"content {i}".encode()),
                    content_type="text/plain",
                    by=REPORTER,
                    max_bytes=1024,
                    attachment_id=key,
                )
            except attachments.AlreadyBegun as earlier:
                if earlier.item.state != attachments.ATTACHED:
                    raise  # still in flight: submit again, as a person would reload
                return earlier.item

        return call

    keys = [new_key() for _ in range(SUBMITTERS)]
    results = in_parallel([lambda i=i: submit(attach(i), keys[i]) for i in range(SUBMITTERS)])

    assert lost_answers.lost > SUBMITTERS // 4
    assert [item.attachment_id for item, _ in results] == keys
    stored = attachments.attachment_list(tenant=tenant, project_key="ATT", number=1)
    assert sorted(item.attachment_id for item in stored) == sorted(keys)
    assert {item.state for item in stored} == {attachments.ATTACHED}


def test_awards_are_given_once_each_and_reported_as_given(
    tenant: str,
    make_project: Callable[..., ProjectItem],
    make_issues: Callable[..., list[IssueItem]],
    lost_answers: dynamodb_faults.LostAnswers,
) -> None:
    make_project()
    dynamodb_faults.disarm_all()
    resolved = []
    for issue in make_issues(SUBMITTERS, assignee="dev-1", priority="high"):
        resolved.append(issues.issue_change_status(issue, to="resolved"))
    dynamodb_faults.lose(lost_answers)

    results = in_parallel([lambda issue=issue: submit(lambda _: scores.award_issue(issue), "") for issue in resolved])

    assert lost_answers.lost > SUBMITTERS // 4
    # truthful: a call botocore's retries carried through says it awarded; a person's second submit after a
    # failure (every answer of the first lost) finds the first one's award, which is not its own
    given = {scores.Outcome.AWARDED, scores.Outcome.ALREADY_AWARDED}
    assert [change.outcome if not failures else change.outcome in given for change, failures in results] == [
        scores.Outcome.AWARDED if not failures else True for _, failures in results
    ]
    dynamodb_faults.disarm_all()
    for issue in resolved:
        assert scores.award_get(tenant=tenant, project_key="WEB", number=int(issue.number)) is not None
    score = scores.score_get(tenant=tenant, username="dev-1")
    assert score is not None
    assert (int(score.score), int(score.awards)) == (3 * SUBMITTERS, SUBMITTERS)
