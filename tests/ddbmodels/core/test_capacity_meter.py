"""The capacity meter on DynamoDB Local: what the access patterns cost, per context."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.core.errors import AlreadyExists, ChangedSinceRead
from ddbmodels.issues.model import CollectionItem, IssueItem, ProjectItem, collection_key
from ddbmodels.patterns.sequences import put_next
from tests.ddbmodels.conftest import REPORTER, Copies

pytestmark = pytest.mark.ddblocal

MakeProject = Callable[..., ProjectItem]
MakeIssues = Callable[..., list[IssueItem]]


# A new issue is written with its 3 list-index entries (project_status, project_status_updated,
# team_status): 1 WCU for the item + 1 per entry. Titles here are one letter, which the search
# does not index, so the write is one PutItem (a title with words adds its search entries in a
# transaction: see the last test).
WCU_PER_ISSUE = 1.0 + 3.0


def create(tenant: str, title: str, key: str = "WEB") -> None:
    """One issue through the sort-key sequence: a consistent Query of the top item, then a PutItem."""
    issues.issue_create(tenant=tenant, project_key=key, title=title[:1], reporter=REPORTER)


def test_creating_one_small_issue_costs_one_rcu_and_one_wcu_per_item_and_list_entry(
    tenant: str, web_project: ProjectItem
) -> None:
    with capacity.measure() as first:
        create(tenant, "small")
    with capacity.measure() as second:
        create(tenant, "small too")

    for meter in (first, second):  # the first reads the static item as the maximum, the second an issue
        assert (meter.rcu, meter.wcu) == (1.0, WCU_PER_ISSUE)
        assert meter.requests == 2
        assert dict(meter.by_operation) == {"Query": 1, "PutItem": 1}
        assert meter.conditional_failures == 0


def test_an_issue_with_a_label_is_one_transaction_with_its_entry_after_the_label_is_registered(
    tenant: str, web_project: ProjectItem
) -> None:
    with capacity.measure() as meter:
        issues.issue_create(tenant=tenant, project_key="WEB", title="Login fails", reporter=REPORTER, labels=["bug"])

    # a label new to the team: GetItem of its registry item (0.5 RCU) and PutItem of it (1 WCU), once
    assert dict(meter.by_operation) == {"GetItem": 1, "PutItem": 1, "Query": 1, "TransactWriteItems": 1}
    # DynamoDB: 2 WCU per item in a transaction — the issue and its label entry (title words are the
    # search engine's now) — plus the issue's 3 list-index entries. DynamoDB Local reports 8 for the
    # issues table (the item and its index entries, each doubled) and 2 for the labels table.
    assert (meter.rcu, meter.wcu) == (1.5, 1 + 2 * (1 + 3) + 2)
    with capacity.measure() as again:
        issues.issue_create(tenant=tenant, project_key="WEB", title="Login fails", reporter=REPORTER, labels=["bug"])
    assert dict(again.by_operation) == {"Query": 1, "TransactWriteItems": 1}  # the label is known: no registry read


def test_creating_a_project_costs_two_wcu_for_the_table_and_the_sparse_index(tenant: str) -> None:
    with capacity.measure() as meter:
        issues.project_create(tenant=tenant, key="WEB", name="Web", created_by=REPORTER)

    assert (meter.rcu, meter.wcu, meter.requests) == (0.0, 2.0, 1)
    assert dict(meter.by_operation) == {"PutItem": 1}


def test_meters_in_different_threads_do_not_see_each_others_calls(tenant: str, make_project: MakeProject) -> None:
    make_project("ONE")
    make_project("TWO")
    both_measuring = threading.Barrier(2, timeout=30)
    meters: dict[str, capacity.CapacityMeter] = {}
    errors: list[BaseException] = []

    def create_measured(key: str, count: int) -> None:
        try:
            with capacity.measure() as meter:
                both_measuring.wait()  # both meters are open before either thread calls DynamoDB
                for _ in range(count):
                    create(tenant, key, key)
                both_measuring.wait()  # …and stay open until both have finished
            meters[key] = meter
        except BaseException as error:
            errors.append(error)
            both_measuring.abort()
            raise

    with capacity.measure() as main_thread:
        threads = [threading.Thread(target=create_measured, args=args) for args in (("ONE", 1), ("TWO", 3))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert not errors
    assert (meters["ONE"].requests, meters["ONE"].rcu, meters["ONE"].wcu) == (2, 1.0, WCU_PER_ISSUE)
    assert (meters["TWO"].requests, meters["TWO"].rcu, meters["TWO"].wcu) == (6, 3.0, 3 * WCU_PER_ISSUE)
    assert main_thread.requests == 0  # a new thread starts outside the meters of the one that started it


def test_nested_meters_both_count_the_inner_calls(tenant: str, web_project: ProjectItem) -> None:
    with capacity.measure() as outer:
        create(tenant, "outer")
        with capacity.measure() as inner:
            create(tenant, "inner")
        issues.issue_get(tenant=tenant, project_key="WEB", number=1)

    assert (inner.requests, inner.rcu, inner.wcu) == (2, 1.0, WCU_PER_ISSUE)
    assert (outer.requests, outer.rcu, outer.wcu) == (5, 2.5, 2 * WCU_PER_ISSUE)  # + an eventually consistent GetItem


def test_the_global_meter_counts_every_call(tenant: str, web_project: ProjectItem) -> None:
    before = capacity.GLOBAL.requests
    create(tenant, "x")
    assert capacity.GLOBAL.requests - before == 2


def test_a_refused_project_create_is_counted_as_a_conditional_failure(tenant: str, make_project: MakeProject) -> None:
    make_project()

    with capacity.measure() as meter, pytest.raises(AlreadyExists):
        make_project()

    assert (meter.requests, meter.conditional_failures) == (1, 1)
    assert meter.wcu == 0.0  # DynamoDB charges it, but its error answer carries no ConsumedCapacity


def test_a_stale_write_is_counted_as_a_conditional_failure(two_copies: Copies) -> None:
    fresh, stale = two_copies
    issues.issue_change_status(fresh, to="closed")

    with capacity.measure() as meter, pytest.raises(ChangedSinceRead):
        issues.issue_change_status(stale, to="resolved")

    # A refused UpdateItem, then the consistent GetItem that tells whether the refusal was this call's own write (its
    # token: a lost answer) or another's (this); the label entries (written only after a success) are not touched.
    assert (meter.requests, meter.conditional_failures, dict(meter.by_operation)) == (
        2,
        1,
        {"UpdateItem": 1, "GetItem": 1},
    )


def test_a_lost_race_costs_one_more_read_and_one_failed_write(tenant: str, web_project: ProjectItem) -> None:
    pk = collection_key(tenant, "WEB")
    competitor_done: list[int] = []

    def build(last: int | None) -> IssueItem:
        number = (last or 0) + 1
        if not competitor_done:
            # Another writer takes the number between our read and our write (its PutItem is metered too).
            IssueItem(pk=pk, number=number, title="competitor", reporter=REPORTER).save(
                condition=CollectionItem.number.does_not_exist()
            )
            competitor_done.append(number)
        return IssueItem(pk=pk, number=number, title="mine", reporter=REPORTER)

    with capacity.measure() as meter:
        claimed = put_next(CollectionItem, pk, build, sleep=lambda _: None)

    assert (claimed.number, claimed.attempts) == (2, 2)
    # 2 Queries + the competitor's PutItem + our failed PutItem + our winning PutItem.
    assert dict(meter.by_operation) == {"Query": 2, "PutItem": 3}
    assert meter.conditional_failures == 1
    assert (meter.rcu, meter.wcu) == (2.0, 2.0)  # the failed write's charge is not in its answer


# ---------------------------------------------------------------------------- access patterns


def test_each_call_is_filed_under_the_access_pattern_that_made_it(tenant: str, web_project: ProjectItem) -> None:
    with capacity.measure() as meter:
        for title in ("a", "b"):  # one letter: no search entries, one PutItem each
            issues.issue_create(tenant=tenant, project_key="WEB", title=title, reporter=REPORTER)
        issues.issue_get(tenant=tenant, project_key="WEB", number=1)

    assert meter.as_dict()["by_pattern"] == {
        "issues.create": {"calls": 2, "rcu": 2.0, "wcu": 2 * WCU_PER_ISSUE, "requests": 4},  # the minimum
        "issues.get": {"calls": 1, "rcu": 0.5, "wcu": 0.0, "requests": 1},
    }
    # The per-pattern figures add up to the meter's totals: nothing is lost or counted twice.
    assert sum(t.requests for t in meter.by_pattern.values()) == meter.requests


def test_the_outermost_pattern_wins_and_calls_outside_any_pattern_are_untagged(
    tenant: str, web_project: ProjectItem
) -> None:
    with capacity.measure() as meter:
        with capacity.access_pattern("service.create_two"):
            create(tenant, "a")
            create(tenant, "b")
        IssueItem.get(collection_key(tenant, "WEB"), 1)  # a plain model read, outside every pattern

    assert set(meter.by_pattern) == {"service.create_two", capacity.UNTAGGED}
    assert meter.by_pattern["service.create_two"].calls == 1  # the inner issues.create calls are not counted
    assert meter.by_pattern["service.create_two"].requests == 4
    assert meter.by_pattern[capacity.UNTAGGED].requests == 1
    assert capacity.current_pattern() is None  # the pattern is gone once its block has ended


def test_a_pattern_is_kept_on_the_threads_of_a_sharded_read(tenant: str) -> None:
    from ddbmodels import scores

    for n, user in enumerate(("ann", "bob", "cyd", "dee")):
        scores.score_add(tenant=tenant, username=user, points=10 + n, shards=4)
    with capacity.measure() as meter:
        top = scores.top_scores(tenant=tenant, k=2, shards=4)

    assert [r.member for r in top] == ["dee", "cyd"]
    # One Query per shard, on 4 threads, all filed under the pattern the caller entered.
    assert set(meter.by_pattern) == {"leaderboard.top"}
    assert meter.by_pattern["leaderboard.top"].calls == 1
    assert meter.by_pattern["leaderboard.top"].requests == 4 == meter.requests


def test_a_decorated_function_raising_leaves_no_pattern_behind(tenant: str) -> None:
    @capacity.access_pattern("failing")
    def failing() -> None:
        assert capacity.current_pattern() == "failing"
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        failing()
    assert capacity.current_pattern() is None


def test_meters_added_together_add_their_patterns() -> None:
    a, b = capacity.CapacityMeter(), capacity.CapacityMeter()
    a.entered("x")
    b.entered("x")
    b.entered("y")
    a.add(b)
    assert {name: t.calls for name, t in a.by_pattern.items()} == {"x": 2, "y": 1}


def test_a_pattern_that_makes_no_request_is_no_call(tenant: str, web_project: ProjectItem) -> None:
    with capacity.measure() as meter:
        for _ in range(3):
            with capacity.access_pattern("probe.maybe"):
                pass  # decided without reading: the probe did not run
        with capacity.access_pattern("probe.maybe"):
            issues.issue_get(tenant=tenant, project_key="WEB", number=1)  # one GetItem

    assert meter.by_pattern["probe.maybe"].calls == 1
    assert meter.by_pattern["probe.maybe"].requests == 1


def test_decorated_patterns_file_the_first_paragraph_of_their_docstring_as_stated_cost() -> None:
    @capacity.access_pattern("stated.example")
    def example() -> None:
        """GetItem something, strongly consistent
        — 1 RCU.

        Details that are not the cost.
        """

    assert capacity.stated_costs()["stated.example"] == ["GetItem something, strongly consistent — 1 RCU."]
    assert capacity.stated_costs()["issues.create"]  # the ddbmodels patterns are filed when imported
