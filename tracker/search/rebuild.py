"""The rebuild: every document of a tenant (or one project) written again from DynamoDB, resumable.

``manage.py search_index rebuild [--tenant SLUG] [--project KEY] [--restart]`` reads each project's
collection one Query page of 100 issues at a time and each live issue's comments (a Query per
issue: comments have no tenant key), under ``--rcu`` (default ``SEARCH_INDEX_RCU_PER_SECOND``, 200)
through ``core.throttle``'s token bucket (``reader``); one database transaction per page, a
progress line per page, its checkpoint (``done`` projects, ``project``, ``after`` number) saved
after every page, so a killed run resumes after its last page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, transaction

from tracker.search.documents import index_comment_item, index_issue_item
from tracker.search.models import IndexCheckpoint
from tracker.search.reader import Progress, Reader, projects_to_read

log = logging.getLogger("tracker.search.indexing")  # the logger's name from before the rebuild had its module


def checkpoint_name(tenant: str, project_key: str | None = None) -> str:
    return f"rebuild:{tenant}:{project_key}" if project_key else f"rebuild:{tenant}"


def rebuild(
    *,
    tenant: str,
    project_key: str | None = None,
    checkpoint: dict[str, Any] | None = None,
    save_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    progress: Progress | None = None,
    rcu_per_second: float | None = None,
    using: str = "default",
) -> dict[str, Any]:
    """(Re)write the documents of a tenant (or one project) from DynamoDB; resumable from ``checkpoint``.

    Reads: Query ``projects`` (0.5 RCU), then per project its collection one page of ISSUE_PAGE
    issues at a time (0.5 RCU per 4 KB), and per live issue a Query of its comments (0.5 RCU per
    4 KB, at least one request an issue: comments have no tenant key). Writes only what is newer
    (``_upsert``), in one database transaction per page. ``checkpoint`` is what ``save_checkpoint``
    was last given — ``{"done": [projects finished], "project": key, "after": number}``, saved after
    every page — so a killed run resumes after its last page; the returned report has the counts
    and the RCU spent. ``rcu_per_second`` holds the reads to that budget.
    """
    reader = Reader(rcu_per_second)
    state = dict(checkpoint or {})
    done: list[str] = list(state.get("done", []))
    counts = {"issues": 0, "comments": 0, "written": 0, "gone": 0}
    say = progress or (lambda line: None)
    for key in projects_to_read(reader, tenant, project_key):
        if key in done:
            continue
        after = int(state.get("after", 0)) if state.get("project") == key else 0
        while True:
            page, more = reader.issues(tenant, key, after)
            # every DynamoDB read of the page first: the transaction below holds SQLite's write lock
            # (it begins IMMEDIATE), which the site's own writes wait for
            comments = {
                int(issue.number): reader.comments(tenant, key, int(issue.number))
                for issue in page
                if not issue.is_tombstone
            }
            with transaction.atomic(using=using):
                for issue in page:
                    counts["issues"] += 1
                    outcome = index_issue_item(issue, using=using)
                    counts["written"] += outcome in ("created", "updated")
                    counts["gone"] += outcome == "removed"
                    for comment in comments.get(int(issue.number), ()):
                        counts["comments"] += 1
                        outcome = index_comment_item(tenant, key, int(issue.number), comment, using=using)
                        counts["written"] += outcome in ("created", "updated")
            if page:
                after = int(page[-1].number)
            state = {"done": done, "project": key, "after": after}
            if save_checkpoint is not None:
                save_checkpoint(state)
            say(
                f"{tenant}/{key}: up to #{after}, {counts['issues']} issues and {counts['comments']} comments read, "
                f"{counts['written']} documents written, {reader.meter.rcu:g} RCU"
            )
            if more is None:
                break
        done.append(key)
        state = {"done": done}
        if save_checkpoint is not None:
            save_checkpoint(state)
    return {"tenant": tenant, **counts, "rcu": round(reader.meter.rcu, 1), "requests": reader.meter.requests}


def rebuild_after_import(*, tenant: str, project_key: str) -> dict[str, Any] | None:
    """``rebuild`` of a project just bulk-loaded (an import records no changes); a database error is logged.

    The import itself is done and stays done: ``manage.py search_index rebuild --tenant`` catches up later.
    """
    try:
        return rebuild(tenant=tenant, project_key=project_key)
    except DatabaseError:
        log.warning("the search documents of %s/%s were not built after its import", tenant, project_key, exc_info=True)
        return None


def rebuild_with_stored_checkpoint(
    *,
    tenant: str,
    project_key: str | None = None,
    restart: bool = False,
    progress: Progress | None = None,
    rcu_per_second: float | None = None,
    using: str = "default",
) -> dict[str, Any]:
    """``rebuild`` with its checkpoint kept in ``IndexCheckpoint`` (the command's way); deleted when finished."""
    name = checkpoint_name(tenant, project_key)
    stored, _ = IndexCheckpoint.objects.using(using).get_or_create(name=name)
    if restart:
        stored.data = {}

    def save(state: dict[str, Any]) -> None:
        stored.data = state
        stored.save(using=using)

    report = rebuild(
        tenant=tenant,
        project_key=project_key,
        checkpoint=stored.data or None,
        save_checkpoint=save,
        progress=progress,
        rcu_per_second=rcu_per_second,
        using=using,
    )
    stored.delete()
    return report
