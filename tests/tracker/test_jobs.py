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


# Archiving, restoring and offboarding share the events archives' lock (review, should 6): an offboarding
# rewrites every archive without the team's events, so an export or a restore meanwhile would keep them.
ARCHIVE, RESTORE = "archive_event_tables", "restore_event_table:tracker-events-2026-07"


def offboarding_job() -> str:
    return f"offboard_tenant:{unique_job()}"


def test_an_archive_job_and_an_offboarding_never_hold_their_locks_at_once() -> None:
    inside: dict[str, Any] = {}

    def archiving(run: JobRun) -> dict[str, Any]:
        inside["offboarding"] = run_job(offboarding_job(), lambda _: {"ran": True})
        return {}

    assert run_job(ARCHIVE, archiving)["status"] == "done"
    skipped = inside["offboarding"]
    assert skipped["status"] == "skipped"
    assert "result" not in skipped  # the offboarding's work never ran
    assert skipped["reason"].startswith("Archiving events tables is running (")
    assert "start this one again once it has finished" in skipped["reason"]
    assert runs_of(skipped["job"])[0]["reason"] == skipped["reason"]  # the history says why, too
    assert run_job(offboarding_job(), lambda _: {})["status"] == "done"  # free again once the archive job ended


def test_archive_and_restore_jobs_are_refused_while_an_offboarding_runs() -> None:
    inside: dict[str, Any] = {}
    offboarding = offboarding_job()

    def offboard(run: JobRun) -> dict[str, Any]:
        inside["archive"] = run_job(ARCHIVE, lambda _: {"ran": True})
        inside["restore"] = run_job(RESTORE, lambda _: {"ran": True})
        inside["other team"] = run_job(offboarding_job(), lambda _: {"ran": True})
        inside["unrelated"] = run_job(unique_job(), lambda _: {"ran": True})
        return {}

    assert run_job(offboarding, offboard)["status"] == "done"
    for job in ("archive", "restore", "other team"):
        assert inside[job]["status"] == "skipped", job
        assert inside[job]["reason"].startswith("A team's offboarding is running ("), job
        assert offboarding.split(":", 1)[1] not in inside[job]["reason"]  # never which team
    assert inside["unrelated"]["result"] == {"ran": True}  # other jobs share nothing with it
    assert run_job(RESTORE, lambda _: {})["status"] == "done"


def test_the_shared_lock_is_kept_alive_with_the_job_s_own_lock() -> None:
    import time

    from tracker.jobs import shared_lock_name

    key = shared_lock_name(ARCHIVE)
    assert key is not None
    seen: dict[str, int] = {}

    def slow(run: JobRun) -> dict[str, Any]:
        time.sleep(0.5)
        run.progress(stage="export")  # past a third of the lock's time: both locks extended
        time.sleep(0.7)
        seen["pttl"] = int(redis_client().pttl(key))  # type: ignore[arg-type]
        return {}

    run_job(ARCHIVE, slow, ttl=1)
    assert seen["pttl"] > 0  # 1.2 s after it was taken with a 1 s expiry: extended, still held
    assert redis_client().exists(key) == 0  # released at the end


def test_a_refused_archive_command_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    from django.core.management import CommandError, call_command

    from tracker.selectors.admin.job_results import job_answer

    def offboard(run: JobRun) -> dict[str, Any]:
        with pytest.raises(CommandError, match="archive_event_tables: skipped, A team's offboarding is running"):
            call_command("archive_event_tables")
        return {"page": job_answer(run_job(RESTORE, lambda _: {})).headline}

    headline = run_job(offboarding_job(), offboard)["result"]["page"]
    assert headline.startswith("Skipped: A team's offboarding is running (archiving, restoring")  # the job page


def test_the_jobs_history_page_says_why_a_run_was_skipped() -> None:
    from django.test import Client

    from tests.tracker.test_admin_capacity import staff_user

    def offboard(run: JobRun) -> dict[str, Any]:
        return run_job(ARCHIVE, lambda _: {})

    assert run_job(offboarding_job(), offboard)["result"]["status"] == "skipped"
    client = Client()
    client.force_login(staff_user())
    page = client.get("/admin/ddb/jobs/").content.decode()
    assert "A team&#x27;s offboarding is running (archiving, restoring" in page
