"""The sharded leaderboard on DynamoDB Local: exact tops and ranks, and points that count once."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from ddbmodels import issues as ddb_issues
from ddbmodels import scores as ddb_scores
from ddbmodels.core import capacity
from ddbmodels.issues.model import PRIORITIES, IssueItem, ProjectItem
from ddbmodels.patterns import leaderboard
from ddbmodels.patterns.leaderboard import Ranked
from ddbmodels.scores.model import POINTS
from tests.ddbmodels.conftest import load

ddblocal = pytest.mark.ddblocal
MakeProject = Callable[..., ProjectItem]
MakeIssues = Callable[..., list[IssueItem]]
Outcome = ddb_scores.Outcome
THREADS = 16


def brute_force(scores: dict[str, int], k: int) -> list[Ranked]:
    """The board by definition: everybody with points, score descending, then name; the first k."""
    order = sorted(((s, u) for u, s in scores.items() if s > 0), key=leaderboard.board_order)
    return leaderboard.ranked(order[:k])


def seed(tenant: str, scores: dict[str, int], shards: int) -> None:
    """Score items straight from the bare ADD, on 8 threads."""
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda item: ddb_scores.score_add(tenant=tenant, username=item[0], points=item[1], shards=shards),
                scores.items(),
            )
        )


def resolved(tenant: str, issue: IssueItem) -> IssueItem:
    return ddb_issues.issue_change_status(load(tenant, int(issue.number)), to="resolved")


def score_of(tenant: str, username: str) -> tuple[int, int]:
    item = ddb_scores.score_get(tenant=tenant, username=username)
    return (int(item.score), int(item.awards)) if item is not None else (0, 0)


# ------------------------------------------------------------------------------ shards and ranks


def test_a_members_shard_is_calculated_the_same_in_every_process_and_stays_in_range() -> None:
    # crc32 values, not hash(): Python salts str hashes per process, which would move members.
    assert [leaderboard.shard_of(u, 4) for u in ("alice", "bob", "carol", "dave")] == [4, 1, 4, 1]
    assert [leaderboard.shard_of(u, 8) for u in ("alice", "bob", "carol", "dave")] == [8, 1, 4, 1]
    assert {leaderboard.shard_of(f"user{i}", 7) for i in range(500)} == set(range(1, 8))
    with pytest.raises(ValueError, match="shards must be"):
        leaderboard.shard_of("alice", 0)


def test_members_with_equal_scores_share_a_place_and_the_next_place_is_skipped() -> None:
    rows = leaderboard.ranked([(9, "b"), (7, "a"), (7, "c"), (5, "d")])
    assert [(r.rank, r.member) for r in rows] == [(1, "b"), (2, "a"), (2, "c"), (4, "d")]


@ddblocal
@pytest.mark.parametrize("shards", [1, 3, 8])
def test_the_merged_top_k_equals_a_brute_force_ranking_of_hundreds_of_random_scores(tenant: str, shards: int) -> None:
    rng = random.Random(shards)
    # 300 members on 25 possible scores: ties everywhere, also across the K-th place.
    scores = {f"{rng.choice('abcxyz')}{i:03d}": rng.randint(1, 25) for i in range(300)}
    seed(tenant, scores, shards)
    for k in (1, 10, 50, 299, 300, 1000):
        assert ddb_scores.top_scores(tenant=tenant, k=k, shards=shards) == brute_force(scores, k), k
    assert ddb_scores.top_scores(tenant="someone-else", k=10, shards=shards) == []


@ddblocal
def test_a_tie_across_the_cut_reads_the_whole_tie_and_lists_it_by_name(tenant: str) -> None:
    """One shard holding 15 members at 5 points: which 10 DynamoDB returns first is arbitrary."""
    scores = {f"m{i:02d}": 5 for i in range(15)} | {"top": 9}
    seed(tenant, scores, 1)
    with capacity.measure() as meter:
        rows = ddb_scores.top_scores(tenant=tenant, k=10, shards=1)
    assert [r.member for r in rows] == ["top", *(f"m{i:02d}" for i in range(9))]
    assert [r.rank for r in rows] == [1] + [2] * 9
    assert meter.by_operation == {"Query": 2}  # the top 10, then every entry at 5 points


@ddblocal
@pytest.mark.parametrize("shards", [1, 4])
def test_a_top_without_a_tie_at_the_cut_costs_one_query_per_shard(tenant: str, shards: int) -> None:
    seed(tenant, {f"m{i:02d}": i + 1 for i in range(40)}, shards)
    with capacity.measure() as meter:
        rows = ddb_scores.top_scores(tenant=tenant, k=10, shards=shards)
    assert [r.score for r in rows] == list(range(40, 30, -1))
    assert meter.by_operation == {"Query": shards}
    assert meter.rcu == shards * 0.5  # eleven small entries per shard are far below 4 KB


@ddblocal
def test_rank_is_one_more_than_the_members_scoring_strictly_more(tenant: str) -> None:
    rng = random.Random(7)
    scores = {f"u{i:03d}": rng.randint(1, 40) for i in range(200)}
    seed(tenant, scores, 4)
    for mine in (40, 33, 20, 1, 0):
        expected = sum(1 for s in scores.values() if s > mine)
        above = ddb_scores.rank_above(tenant=tenant, score=mine, shards=4)
        assert (above.count, above.rank, above.exact) == (expected, expected + 1, True)
    capped = ddb_scores.rank_above(tenant=tenant, score=0, shards=4, cap=20)
    assert not capped.exact
    assert 20 <= capped.count < 200


# ------------------------------------------------------------------------------ awards


@ddblocal
def test_awarding_an_issue_twice_counts_it_once(tenant: str, web_project: ProjectItem, make_issues: MakeIssues) -> None:
    (issue,) = make_issues(1, assignee="alice", priority="high")
    issue = resolved(tenant, issue)
    first = ddb_scores.award_issue(issue)
    with capacity.measure() as meter:
        second = ddb_scores.award_issue(issue)
    assert (first.outcome, first.points, first.changed) == (Outcome.AWARDED, POINTS["high"], True)
    assert (second.outcome, second.changed) == (Outcome.ALREADY_AWARDED, False)
    assert meter.conditional_failures == 1  # refused by the award's attribute_not_exists
    assert score_of(tenant, "alice") == (3, 1)
    assert ddb_scores.top_scores(tenant=tenant, k=10) == [Ranked(1, "alice", 3)]


@ddblocal
def test_revoking_takes_back_exactly_the_award_and_a_second_revoke_does_nothing(
    tenant: str, web_project: ProjectItem, make_issues: MakeIssues
) -> None:
    first, second = make_issues(2, assignee="alice", priority="urgent")
    ddb_scores.award_issue(resolved(tenant, first))
    ddb_scores.award_issue(resolved(tenant, second))
    assert score_of(tenant, "alice") == (10, 2)
    reopened = ddb_issues.issue_change_status(load(tenant, 1), to="open")
    assert ddb_scores.revoke_issue(reopened).outcome is Outcome.REVOKED
    assert score_of(tenant, "alice") == (5, 1)
    assert ddb_scores.award_get(tenant=tenant, project_key="WEB", number=1) is None
    assert ddb_scores.revoke_issue(reopened).outcome is Outcome.NOTHING_TO_REVOKE
    assert score_of(tenant, "alice") == (5, 1)
    # Resolved again, it earns its points again.
    assert ddb_scores.award_issue(resolved(tenant, reopened)).outcome is Outcome.AWARDED
    assert score_of(tenant, "alice") == (10, 2)


@ddblocal
def test_concurrent_duplicated_awards_of_many_issues_add_up_to_exactly_the_sum(
    tenant: str, web_project: ProjectItem
) -> None:
    rng = random.Random(42)
    users = [f"dev{i}" for i in range(6)]
    issues = []
    for i in range(60):
        claimed = ddb_issues.issue_create(
            tenant=tenant,
            project_key="WEB",
            title=f"#{i}",
            reporter="r",
            assignee=rng.choice(users),
            priority=rng.choice(PRIORITIES),
        )
        issues.append(resolved(tenant, claimed.item))
    expected = Counter[str]()
    for issue in issues:
        expected[str(issue.assignee)] += POINTS[issue.priority]
    work = issues * 2  # every issue awarded twice, from different threads, at the same time
    rng.shuffle(work)
    start = threading.Barrier(THREADS)

    meters: list[capacity.CapacityMeter] = []

    def writer(chunk: list[IssueItem]) -> list[ddb_scores.Change]:
        with capacity.measure() as meter:
            start.wait(timeout=60)
            changes = [ddb_scores.award_issue(issue) for issue in chunk]
        meters.append(meter)
        return changes

    with ThreadPoolExecutor(THREADS) as pool:
        changes = [c for chunk in pool.map(writer, [work[i::THREADS] for i in range(THREADS)]) for c in chunk]
    outcomes = Counter(c.outcome for c in changes)
    assert outcomes == {Outcome.AWARDED: 60, Outcome.ALREADY_AWARDED: 60}
    # The duplicates were refused by DynamoDB itself: each one a transaction cancelled on its condition.
    assert sum(meter.conditional_failures for meter in meters) >= 60
    assert {u: score_of(tenant, u)[0] for u in users} == {u: expected[u] for u in users}
    assert sum(score_of(tenant, u)[1] for u in users) == 60
    assert ddb_scores.top_scores(tenant=tenant, k=10) == brute_force(dict(expected), 10)
