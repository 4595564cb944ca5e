"""Maintenance jobs: the work itself, shared by Celery tasks and management commands.

Each ``*_job`` function takes the ``JobRun`` that ``tracker.jobs.run_job`` hands it and returns a
JSON-serializable result; ``run_job`` adds the capacity it consumed and skips overlapping runs.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from ddbmodels import events, issues
from ddbmodels.core.errors import NotFound
from ddbmodels.issues import split_collection_key
from ddbmodels.patterns.distinct_keys import distinct_keys
from tracker.jobs import JobRun
from tracker.services.projects import project_counts_refresh
from tracker.storage import DjangoArchiveStore

CHECKPOINT_EVERY = 10


def distinct_keys_job(
    run: JobRun, *, table: str, method: str = "auto", segments: int = 1, index: str | None = None
) -> dict[str, Any]:
    """Distinct partition keys of any table on the endpoint; the report, and a sample of keys."""
    result = distinct_keys(
        table,
        method=method,
        segments=segments,
        index_name=index,
        on_progress=lambda keys, requests: run.progress(stage="scanning", keys=keys, requests=requests),
    )
    sample = [k if isinstance(k, str) else repr(k) for k in result.keys[:20]]
    return {"report": result.report.as_dict(), "sample": sample}


def enumerate_projects_job(run: JobRun, *, method: str = "auto", segments: int = 1) -> dict[str, Any]:
    """Distinct project collections of the issues table (the sparse projects index helps auto)."""
    result = issues.project_collections(
        method=method,
        segments=segments,
        on_progress=lambda keys, requests: run.progress(stage="scanning", keys=keys, requests=requests),
    )
    tenants = sorted({split_collection_key(str(pk))[0] for pk in result.keys})
    return {"report": result.report.as_dict(), "projects": len(result.keys), "tenants": len(tenants)}


def backfill_project_counts_job(run: JobRun, *, method: str = "auto", segments: int = 1) -> dict[str, Any]:
    """Visit every project collection and refresh its static item's counts; resumable.

    The collections are enumerated with the distinct-keys pattern and visited in key order; the
    last key done is checkpointed on the job's item (under the fencing token) every few
    projects, so a run that was killed resumes after it instead of starting over.
    """
    result = issues.project_collections(method=method, segments=segments)
    keys = sorted(str(pk) for pk in result.keys)
    resume_after = run.checkpoint()
    todo = [pk for pk in keys if resume_after is None or pk > resume_after]
    refreshed = orphans = 0
    for done, pk in enumerate(todo, start=1):
        tenant, project_key = split_collection_key(pk)
        try:
            project_counts_refresh(tenant=tenant, key=project_key)
            refreshed += 1
        except NotFound:
            orphans += 1  # a collection without its static item: reported, not invented
        if done % CHECKPOINT_EVERY == 0 or done == len(todo):
            run.save_checkpoint(pk)
        run.progress(stage="refreshing", done=done, total=len(todo))
    run.save_checkpoint(None)  # finished: the next run starts from the beginning
    return {
        "collections": len(keys),
        "resumed_after": resume_after,
        "refreshed": refreshed,
        "orphans": orphans,
        "enumeration": result.report.as_dict(),
    }


def rotate_event_tables_job(run: JobRun) -> dict[str, Any]:
    """Create the next period's events table ahead of time; hot throughput current, cold older."""
    run.progress(stage="rotating")
    report = events.rotate(
        settings.EVENTS_PERIOD,
        hot=settings.EVENTS_HOT_THROUGHPUT,
        cold=settings.EVENTS_COLD_THROUGHPUT,
        billing_mode=settings.EVENTS_BILLING_MODE,
    )
    return report.as_dict()


def archive_event_tables_job(run: JobRun, *, dry_run: bool = False) -> dict[str, Any]:
    """Export every events table past retention, verify the archive, then (fenced) drop the table."""

    def progress(done: int, total: int, stage: str) -> None:
        run.progress(stage=stage, done=done, total=total)

    reports = events.archive(
        settings.EVENTS_PERIOD,
        None,
        settings.EVENTS_RETENTION,
        DjangoArchiveStore(),
        fence=run.fence,
        dry_run=dry_run,
        segments=settings.EVENTS_ARCHIVE_SEGMENTS,
        on_progress=progress,
    )
    return {"dry_run": dry_run, "tables": [r.as_dict() for r in reports]}


def restore_event_table_job(run: JobRun, *, archive: str, table: str | None = None) -> dict[str, Any]:
    """Recreate an events table from its archive and verify every item came back."""

    def progress(done: int, total: int, stage: str) -> None:
        run.progress(stage=stage, done=done, total=total)

    report = events.restore(
        DjangoArchiveStore(), archive, table_name=table, billing_mode=settings.EVENTS_BILLING_MODE, on_progress=progress
    )
    return report.as_dict()
