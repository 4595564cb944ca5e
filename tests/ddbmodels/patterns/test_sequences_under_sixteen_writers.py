"""Many writers, several processes, one project: every number handed out once, none skipped."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

import pytest

import ddbmodels
from ddbmodels import issues
from ddbmodels.issues.model import ProjectItem
from ddbmodels.patterns import sequences
from tests.ddbmodels.conftest import REPORTER, load
from tests.ddbmodels.patterns import issue_writers
from tests.ddbmodels.processes import interleaving, run_in_processes

PROCESSES = 2
THREADS = 8
PER_THREAD = 25
N = PROCESSES * THREADS * PER_THREAD  # 400 issues from 16 writers

log = logging.getLogger(__name__)


def run_writers(settings: ddbmodels.DynamoSettings, tenant: str, key: str) -> list[dict]:
    where = {"endpoint_url": settings.endpoint_url, "table_prefix": settings.table_prefix, "tenant": tenant}
    return run_in_processes(
        issue_writers.write_issues, PROCESSES, **where, key=key, threads=THREADS, per_thread=PER_THREAD
    )


@pytest.mark.ddblocal
@pytest.mark.slow
def test_sixteen_writers_in_two_processes_number_four_hundred_issues_without_duplicate_or_gap(
    ddblocal: ddbmodels.DynamoSettings,
    tenant: str,
    make_project: Callable[..., ProjectItem],
    record_property: Callable[[str, object], None],
) -> None:
    make_project("RACE")

    reports = run_writers(ddblocal, tenant, "RACE")

    claims = [claim for report in reports for claim in report["claims"]]
    claimed_numbers = [number for number, _, _ in claims]
    # Nothing lost: every create the writers asked for came back with a number…
    assert len(claims) == N
    # …no two writers were told the same number, and the numbers are exactly 1..N.
    duplicates = [number for number, times in Counter(claimed_numbers).items() if times > 1]
    assert duplicates == []
    assert sorted(claimed_numbers) == list(range(1, N + 1))
    # The table agrees: exactly 1..N, each holding the issue of the writer that was told so.
    assert issues.issue_numbers(tenant=tenant, project_key="RACE") == list(range(1, N + 1))
    page = issues.issue_page(tenant=tenant, project_key="RACE", size=N)
    assert {int(item.number): item.title for item in page.items} == {number: title for number, title, _ in claims}

    # Every lost race is one failed conditional PutItem, as counted by the capacity meters…
    conflicts = sum(attempts - 1 for _, _, attempts in claims)
    given_up = sum(report["given_up"] for report in reports)
    failures = sum(report["conditional_failures"] for report in reports)
    assert failures == conflicts + given_up * sequences.BACKOFF.attempts
    # …and there were races to lose: the writers really ran into each other, across processes.
    assert conflicts > 0
    assert failures > 0
    by_number = sorted((number, title.split("-")[0]) for number, title, _ in claims)
    assert interleaving([process for _, process in by_number]) > PROCESSES
    seconds = max(report["seconds"] for report in reports)
    figures = {"issues": N, "writers": PROCESSES * THREADS, "seconds": round(seconds, 1)}
    figures |= {"conflicts": conflicts, "given_up": given_up, "conditional_failures": failures}
    for name, value in figures.items():
        record_property(name, value)
    log.info("concurrency figures: %s", figures)

    # The newest issue tombstoned keeps its number taken: the next issue is N + 1.
    newest = load(tenant, N, "RACE")
    issues.issue_tombstone(newest, by=REPORTER)
    after = issues.issue_create(tenant=tenant, project_key="RACE", title="after the tombstone", reporter=REPORTER)
    assert after.number == N + 1
    assert load(tenant, N, "RACE").is_tombstone
    assert issues.issue_numbers(tenant=tenant, project_key="RACE") == list(range(1, N + 2))
