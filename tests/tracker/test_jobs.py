"""Jobs never overlap themselves, and a superseded run is fenced out before anything destructive."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ddbmodels import jobs
from ddbmodels.jobs import FencedOut
from tracker.jobs import RUNS_KEPT, JobRun, recent_runs, redis_client, run_job


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
        return {"refused": True}

    assert run_job(name, work)["result"] == {"refused": True}  # the work ran to its end
    state = jobs.job_state(name)
    assert state is not None
    assert state.checkpoint == "acme#WEB"


def runs_of(name: str) -> list[dict[str, Any]]:
    return [run for run in recent_runs(RUNS_KEPT) if run["job"] == name]


def test_every_run_is_in_the_history_done_skipped_failed_and_fenced_out_newest_first() -> None:
    name = unique_job()

    def skipped_inside(run: JobRun) -> dict[str, Any]:
        run_job(name, lambda _: {})  # the lock is held: this one is skipped
        return {}

    run_job(name, skipped_inside, task_id="4f1c2a9e-0000-4000-8000-000000000001")
    with pytest.raises(RuntimeError):
        run_job(name, lambda run: (_ for _ in ()).throw(RuntimeError("disk full")))

    def fenced(run: JobRun) -> dict[str, Any]:
        jobs.fence_acquire(name, "newer-run")
        run.fence()
        return {}

    with pytest.raises(FencedOut):
        run_job(name, fenced)

    runs = runs_of(name)
    assert [r["status"] for r in runs] == ["fenced out", "failed", "done", "skipped"]
    assert runs[1]["error"] == "RuntimeError: disk full"
    assert runs[2]["task_id"] == "4f1c2a9e-0000-4000-8000-000000000001"
    assert runs[2]["capacity"]["wcu"] >= 1  # the fencing token
    assert runs[0]["task_id"] is None  # started by code, as a management command would


def test_the_history_keeps_only_the_newest_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import tracker.jobs

    monkeypatch.setattr(tracker.jobs, "RUNS_KEPT", 3)
    names = [unique_job() for _ in range(5)]
    for name in names:
        run_job(name, lambda run: {})
    assert [run["job"] for run in recent_runs(100)] == names[:-4:-1]  # the last three, newest first
