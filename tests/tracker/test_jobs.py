"""Jobs never overlap themselves, and a superseded run is fenced out before anything destructive."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ddbmodels import jobs
from ddbmodels.jobs import FencedOut
from tracker.jobs import JobRun, redis_client, run_job


def unique_job() -> str:
    return f"test-job-{uuid.uuid4().hex[:8]}"


def test_a_job_reports_its_result_token_and_capacity() -> None:
    name = unique_job()
    report = run_job(name, lambda run: {"token_seen": run.token})
    assert report["status"] == "done"
    assert report["result"] == {"token_seen": report["token"]}
    assert report["capacity"]["wcu"] >= 1  # the fencing token's UpdateItem
    assert run_job(name, lambda run: {})["token"] == report["token"] + 1


def test_a_second_run_while_the_first_holds_the_lock_is_skipped() -> None:
    name = unique_job()
    inner: dict[str, Any] = {}

    def first(run: JobRun) -> dict[str, Any]:
        inner.update(run_job(name, lambda _: {"ran": True}))
        return {}

    assert run_job(name, first)["status"] == "done"
    assert inner["status"] == "skipped"
    assert "result" not in inner


def test_the_lock_expires_so_a_crashed_run_does_not_block_the_job_forever() -> None:
    name = unique_job()
    redis_client().set(f"tracker:job-lock:{name}", "crashed-run", px=50)
    import time

    time.sleep(0.1)
    assert run_job(name, lambda run: {})["status"] == "done"


def test_a_run_whose_token_was_superseded_is_fenced_out_and_does_nothing_destructive() -> None:
    name = unique_job()
    deleted: list[str] = []

    def stale_then_destructive(run: JobRun) -> dict[str, Any]:
        # While this run stalls (its lock expired), a newer run takes the fencing token.
        jobs.fence_acquire(name, "newer-run")
        run.fence()
        deleted.append("table")  # never reached
        return {}

    with pytest.raises(FencedOut):
        run_job(name, stale_then_destructive)
    assert deleted == []
    state = jobs.job_state(name)
    assert state is not None
    assert state.owner == "newer-run"


def test_a_checkpoint_is_written_under_the_token_and_refused_to_a_stale_run() -> None:
    name = unique_job()

    def work(run: JobRun) -> dict[str, Any]:
        run.save_checkpoint("acme#WEB")
        assert run.checkpoint() == "acme#WEB"
        jobs.fence_acquire(name, "newer-run")
        with pytest.raises(FencedOut):
            run.save_checkpoint("acme#ZZZ")
        return {}

    run_job(name, work)
    state = jobs.job_state(name)
    assert state is not None
    assert state.checkpoint == "acme#WEB"
