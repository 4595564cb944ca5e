"""The API's request fingerprint on idempotency records, and kept answers (``answers``), on DynamoDB Local.

The same key with the same fingerprint is a replay (the first item, nothing written); with another fingerprint it
is KeyReused, nothing written; without a fingerprint (the pages' forms) nothing is compared, as before.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ddbmodels import comments, issues, milestones, orders
from ddbmodels.core import capacity
from ddbmodels.core.errors import KeyReused
from ddbmodels.idempotency import ANSWER_MAX, CreationRecord, answer_get, answer_put, record_get, record_pk
from ddbmodels.issues.model import IssueItem, ProjectItem
from ddbmodels.orders.model import OrderItem
from ddbmodels.patterns.sequences import Claimed
from tests.ddbmodels.conftest import REPORTER
from tests.ddbmodels.orders.helpers import unique_counter

pytestmark = pytest.mark.ddblocal

A, B = "a" * 64, "b" * 64  # two fingerprints (sha256 hex)


def stored_issues(tenant: str) -> list[IssueItem]:
    return [i for i in IssueItem.query(f"{tenant}#WEB", consistent_read=True) if isinstance(i, IssueItem)]


def create(tenant: str, title: str, fingerprint: str | None, key: str = "k1") -> Claimed[IssueItem]:
    return issues.issue_create(
        tenant=tenant,
        project_key="WEB",
        title=title,
        reporter=REPORTER,
        idempotency_key=key,
        fingerprint=fingerprint,
    )


def test_an_issue_key_keeps_its_fingerprint_and_the_same_request_replays(
    tenant: str, make_project: Callable[..., ProjectItem]
) -> None:
    make_project()
    first = create(tenant, "One", A)
    record = record_get(tenant=tenant, kind="issue#WEB", key="k1")
    assert record is not None
    assert record.fingerprint == A
    again = create(tenant, "One", A)
    assert again.replayed
    assert again.number == first.number
    assert len(stored_issues(tenant)) == 1


def test_an_issue_key_sent_with_another_request_is_refused_and_writes_nothing(
    tenant: str, make_project: Callable[..., ProjectItem]
) -> None:
    make_project()
    create(tenant, "One", A)
    with capacity.measure() as meter, pytest.raises(KeyReused):
        create(tenant, "Two", B)
    assert meter.wcu == 0  # the cancelled transaction is charged nothing by Local; no write succeeded
    assert [i.title for i in stored_issues(tenant)] == ["One"]


def test_without_a_fingerprint_nothing_is_compared_as_before(
    tenant: str, make_project: Callable[..., ProjectItem]
) -> None:
    make_project()
    create(tenant, "One", None)
    assert create(tenant, "Other words, same form key", None).replayed  # a form's key: its first issue


def test_a_comment_key_sent_with_another_request_is_refused(tenant: str) -> None:
    def add(body: str, fingerprint: str) -> comments.Added:
        return comments.comment_add(
            tenant=tenant,
            project_key="WEB",
            number=1,
            author="alice",
            body=body,
            idempotency_key="c1",
            fingerprint=fingerprint,
        )

    first = add("hello", A)
    assert add("hello", A).comment.key == first.comment.key
    with pytest.raises(KeyReused):
        add("other", B)
    assert len(list(comments.CommentItem.query(comments.issue_stream(tenant, "WEB", 1), consistent_read=True))) == 1


def test_an_order_key_sent_with_another_request_is_refused(tenant: str) -> None:
    counter = unique_counter()

    def place(quantity: int, fingerprint: str) -> Claimed[OrderItem]:
        return orders.order_place(
            customer=tenant,
            product="seats",
            quantity=quantity,
            delivery="standard",
            placed_by="tester",
            counter=counter,
            idempotency_key="o1",
            fingerprint=fingerprint,
        )

    first = place(1, A)
    assert place(1, A).item.placed == first.item.placed
    with pytest.raises(KeyReused):
        place(2, B)
    assert len(list(OrderItem.query(tenant, consistent_read=True))) == 1


def test_a_kept_answer_is_read_back_and_the_first_one_stays(tenant: str) -> None:
    assert answer_get(tenant=tenant, kind="inbox-read", key="api.1.x") is None
    with capacity.measure() as meter:
        assert answer_put(
            tenant=tenant, kind="inbox-read", key="api.1.x", status=200, body='{"marked": 3}', fingerprint=A
        )
    assert meter.wcu == 2  # the record (≤ 1 KB) and its by_tenant entry
    assert not answer_put(
        tenant=tenant, kind="inbox-read", key="api.1.x", status=200, body='{"marked": 0}', fingerprint=A
    )
    with capacity.measure() as meter:
        kept = answer_get(tenant=tenant, kind="inbox-read", key="api.1.x")
    assert meter.rcu == 1
    assert kept is not None
    assert (kept.status, kept.body, kept.fingerprint) == (200, '{"marked": 3}', A)
    record = CreationRecord.get(record_pk(tenant, "inbox-read", "api.1.x"), consistent_read=True)
    assert record.expires is not None  # a day, as every record
    assert record.shard.startswith(f"{tenant}#")  # offboarding finds it through by_tenant


def test_an_answer_over_a_kilobyte_is_refused_and_nothing_is_written(tenant: str) -> None:
    with pytest.raises(ValueError, match="at most"):
        answer_put(tenant=tenant, kind="k", key="big", status=200, body="x" * ANSWER_MAX, fingerprint=A)
    assert answer_get(tenant=tenant, kind="k", key="big") is None


def test_a_key_resent_after_its_milestone_closed_replays_or_is_refused_by_its_fingerprint(
    tenant: str, make_project: Callable[..., ProjectItem]
) -> None:
    make_project()
    milestone, _ = milestones.milestone_create(tenant=tenant, project_key="WEB", name="v1", due=None, created_by="o")

    def send(title: str, fingerprint: str) -> Claimed[IssueItem]:
        return issues.issue_create(
            tenant=tenant,
            project_key="WEB",
            title=title,
            reporter=REPORTER,
            idempotency_key="m1",
            milestone=milestone.milestone_id,
            fingerprint=fingerprint,
        )

    first = send("In v1", A)
    milestones.milestone_set_state(milestone, state="closed", expected_version=int(milestone.version))
    assert send("In v1", A).replayed  # refused by the closed milestone and by the key: the key's record answers
    assert send("In v1", A).number == first.number
    with pytest.raises(KeyReused):  # another request with the key: not its replay, though the milestone refused too
        send("Something else", B)
    assert [i.title for i in stored_issues(tenant)] == ["In v1"]
