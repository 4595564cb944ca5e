"""The sort-key sequence (patterns.sequences) on moto: lost races, give-up, jitter, refusals."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ddbmodels import issues
from ddbmodels.core.errors import NotFound, SequenceContention
from ddbmodels.issues.model import CollectionItem, IssueItem, ProjectItem, collection_key
from ddbmodels.patterns import sequences
from ddbmodels.patterns.sequences import BACKOFF, latest_sort_key, put_next
from tests.ddbmodels.conftest import REPORTER

pytestmark = pytest.mark.usefixtures("moto_ddb")
BASE_DELAY_S, MAX_DELAY_S = BACKOFF.base_s, BACKOFF.cap_s


def issue(pk: str, number: int, title: str) -> IssueItem:
    return IssueItem(pk=pk, number=number, title=title, reporter=REPORTER)


def competitor_takes(pk: str, number: int, title: str = "competitor") -> None:
    """Another writer claims ``number`` first (the same conditional PutItem put_next makes)."""
    issue(pk, number, title).save(condition=CollectionItem.number.does_not_exist())


def everything_in(pk: str) -> dict[int, str]:
    """SK → title (or kind) of every item of the collection, read consistently."""
    return {
        int(item.number): getattr(item, "title", None) or type(item).__name__
        for item in CollectionItem.query(pk, consistent_read=True)
    }


def always_losing_build(pk: str) -> Callable[[int | None], IssueItem]:
    """A build callback whose number is always taken by a competitor before its PutItem."""

    def build(last: int | None) -> IssueItem:
        number = (last or 0) + 1
        competitor_takes(pk, number, title=f"competitor {number}")
        return issue(pk, number, "loser")

    return build


def test_a_conflict_on_the_first_try_is_retried_and_the_issue_gets_the_next_number(
    tenant: str, make_project: Callable[..., ProjectItem], make_issues: Callable[..., list[IssueItem]], monkeypatch
) -> None:
    make_project()
    make_issues(1)
    pk = collection_key(tenant, "WEB")
    reads: list[int | None] = []
    real_latest = sequences.latest_sort_key

    def latest_then_competitor_writes(model: type[CollectionItem], hash_key: object) -> int | None:
        last = real_latest(model, hash_key)
        reads.append(last)
        if len(reads) == 1:  # between our read and our write, somebody takes last + 1
            competitor_takes(pk, (last or 0) + 1)
        return last

    monkeypatch.setattr(sequences, "latest_sort_key", latest_then_competitor_writes)

    claimed = issues.issue_create(tenant=tenant, project_key="WEB", title="mine", reporter=REPORTER)

    assert claimed.number == 3
    assert claimed.attempts == 2
    assert claimed.conflicts == 1
    assert reads == [1, 2]
    assert everything_in(pk) == {0: "ProjectItem", 1: "issue 1", 2: "competitor", 3: "mine"}
    assert issues.issue_numbers(tenant=tenant, project_key="WEB") == [1, 2, 3]


def test_put_next_retries_after_one_lost_race_with_one_jittered_sleep(tenant: str) -> None:
    pk = collection_key(tenant, "WEB")
    delays: list[float] = []
    lost = []

    def build(last: int | None) -> IssueItem:
        number = (last or 0) + 1
        if not lost:
            lost.append(number)
            competitor_takes(pk, number)
        return issue(pk, number, "mine")

    claimed = put_next(CollectionItem, pk, build, rng=random.Random(7), sleep=delays.append)

    assert (claimed.number, claimed.attempts) == (2, 2)
    assert claimed.item.title == "mine"
    assert everything_in(pk) == {1: "competitor", 2: "mine"}
    assert len(delays) == 1
    assert 0 <= delays[0] <= BASE_DELAY_S * 2


def test_an_uncontended_claim_takes_one_attempt_and_never_sleeps(tenant: str) -> None:
    pk = collection_key(tenant, "WEB")
    delays: list[float] = []

    claimed = put_next(CollectionItem, pk, lambda last: issue(pk, (last or 0) + 1, "only"), sleep=delays.append)

    assert (claimed.number, claimed.attempts, claimed.conflicts) == (1, 1, 0)
    assert delays == []


def test_sequence_contention_after_max_attempts_lost_races_and_the_loser_wrote_nothing(tenant: str) -> None:
    pk = collection_key(tenant, "WEB")
    delays: list[float] = []

    with pytest.raises(SequenceContention) as raised:
        put_next(CollectionItem, pk, always_losing_build(pk), max_attempts=4, sleep=delays.append)

    assert raised.value.code == "sequence_contention"
    assert raised.value.context == {"hash_key": pk, "attempts": 4}
    # Four lost races: four competitors' items, and not one item of the loser.
    assert everything_in(pk) == {n: f"competitor {n}" for n in (1, 2, 3, 4)}
    assert len(delays) == 3  # a backoff before every re-read, none after the last lost race


def test_the_sleep_callback_receives_jittered_delays_bounded_by_the_max(tenant: str) -> None:
    pk = collection_key(tenant, "WEB")
    delays: list[float] = []

    with pytest.raises(SequenceContention):
        put_next(
            CollectionItem, pk, always_losing_build(pk), max_attempts=12, rng=random.Random(2024), sleep=delays.append
        )

    assert len(delays) == 11
    for attempt, delay in enumerate(delays, start=1):
        assert 0 <= delay <= min(MAX_DELAY_S, BASE_DELAY_S * 2**attempt), (attempt, delay)
    assert max(delays) <= MAX_DELAY_S
    assert len(set(delays)) == len(delays), "full jitter draws a different delay each time"


def test_the_backoff_ceiling_doubles_per_attempt_and_stops_at_the_max(tenant: str) -> None:
    class UpperBound(random.Random):
        """An rng that always draws the top of the range: the delays are the ceilings."""

        def uniform(self, a: float, b: float) -> float:
            assert a == 0
            return b

    pk = collection_key(tenant, "WEB")
    delays: list[float] = []

    with pytest.raises(SequenceContention):
        put_next(CollectionItem, pk, always_losing_build(pk), max_attempts=9, rng=UpperBound(), sleep=delays.append)

    ceilings = [0.008, 0.016, 0.032, 0.064, 0.128, 0.25, 0.25, 0.25]
    assert delays == pytest.approx(ceilings)
    assert all(delay <= MAX_DELAY_S for delay in delays)


def test_issue_create_raises_not_found_when_the_project_is_missing_and_writes_nothing(tenant: str) -> None:
    with pytest.raises(NotFound) as raised:
        issues.issue_create(tenant=tenant, project_key="NOPE", title="orphan", reporter=REPORTER)

    assert raised.value.code == "not_found"
    assert raised.value.context == {"tenant": tenant, "project_key": "NOPE"}
    assert everything_in(collection_key(tenant, "NOPE")) == {}
    assert list(CollectionItem.scan()) == []


def test_latest_sort_key_of_an_empty_collection_is_none(tenant: str) -> None:
    assert latest_sort_key(CollectionItem, collection_key(tenant, "WEB")) is None


def test_latest_sort_key_is_the_largest_number_of_the_collection(
    tenant: str, make_project: Callable[..., ProjectItem], make_issues: Callable[..., list[IssueItem]]
) -> None:
    pk = collection_key(tenant, "WEB")
    make_project()
    assert latest_sort_key(CollectionItem, pk) == 0  # the static item
    make_issues(12)  # 12 > 9: numeric, not lexicographic, order
    assert latest_sort_key(CollectionItem, pk) == 12
    assert latest_sort_key(CollectionItem, collection_key(tenant, "OTHER")) is None
