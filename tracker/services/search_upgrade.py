"""Upgrading an install in place to per-label entries, per-record idempotency keys and the search engine.

``manage.py upgrade_search`` runs ``upgrade_search_job`` through ``tracker.jobs.run_job`` (one run
at a time, fenced, metered). Run it after ``ddb_create_tables`` has created ``labels`` and
``idempotency_keys``, while the new version serves (its writes already go to the new tables):

    labels        every project's collection (Query, consistent, a page at a time) → each live
                  labelled issue's ``labels`` entries (and each label's registry item), by
                  BatchWriteItem under the WCU budget; a batch cannot carry the entries'
                  version guard, so the page's versions are read again after it (BatchGetItem,
                  1 RCU an issue) and every issue saved meanwhile is reconciled (``labels_settle``)
    idempotency   the old ``idempotency`` table (PK the team; a day of records at most: a Scan) →
                  each unexpired record copied to its own key (PutItem ``attribute_not_exists``: a
                  record a new create wrote meanwhile is kept)
    search        the search engine's rebuild for every team (``tracker.search.indexing.rebuild``)
    drop          only with ``drop=True`` (``--drop-old-tables``), once no process of the previous
                  version serves (it still writes the old tables): the old idempotency table is
                  copied once more, then DeleteTable of ``terms`` and of the old ``idempotency``
                  table: free, where deleting their items one by one would cost 1 WCU each. A run
                  without it stops before this stage and leaves the checkpoint there, so the
                  later ``--drop-old-tables`` run does only this.

The checkpoint (stage and position) is saved in the job's item under its fencing token after every
page, so a killed run resumes where it was and a superseded one stops; a finished run leaves none,
and a rerun finds nothing left to copy or drop (its label pass rewrites the same entries).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings

from ddbmodels import idempotency, issues, labels
from ddbmodels.core import connection, tables
from ddbmodels.core.throttle import TokenBucket
from ddbmodels.issues import IssueItem, issue_collection_page
from tracker.jobs import JobRun

PAGE = 100  # issues read per Query of a collection (≈ 1 KB each with the description: 12.5–25 RCU consistent)
LEGACY_TERMS = "terms"
Say = Callable[[str], None]


def _collection_pages(tenant: str, project_key: str, after: int) -> Iterator[tuple[list[IssueItem], int | None]]:
    """Query pk, SK > after, Limit PAGE, consistent — 1 RCU per 4 KB; (issues, last number read or None at the end)."""
    while True:
        page, last = issue_collection_page(
            tenant=tenant, project_key=project_key, after=after, limit=PAGE, consistent=True
        )
        yield page, last
        if last is None:
            return
        after = last


def _labels_stage(run: JobRun, state: dict[str, Any], bucket: TokenBucket | None, say: Say) -> dict[str, int]:
    pairs = issues.all_project_keys()
    counts = {"projects": 0, "issues": 0, "entries": 0, "settled": 0}
    for index, (tenant, project_key) in enumerate(pairs):
        if index < state.get("project", 0):
            continue
        after = state.get("after", 0) if index == state.get("project", 0) else 0
        for page, last in _collection_pages(tenant, project_key, after):
            for issue in page:
                counts["issues"] += 1
                if issue.is_tombstone or not issue.labels:
                    continue
                labels.registry_ensure(tenant, issue.labels)
            run.save_checkpoint(json.dumps({**state, "project": index, "after": after}))  # the fence
            counts["entries"] += issues.label_entries_put(page, bucket=bucket)
            # the batch cannot carry the entries' version guard: repair any issue saved since its read
            counts["settled"] += issues.labels_settle(i for i in page if not i.is_tombstone and i.labels)
            after = last if last is not None else (int(page[-1].number) if page else after)
            run.progress(stage="labels", project=f"{tenant}/{project_key}", done=counts["issues"])
        counts["projects"] += 1
        say(
            f"labels: {tenant}/{project_key} done ({counts['issues']} issues read, {counts['entries']} entries written)"
        )
        state.update(project=index + 1, after=0)
        run.save_checkpoint(json.dumps(state))
    return counts


def _legacy_idempotency_table() -> str | None:
    return connection.table_name(idempotency.LEGACY) if idempotency.legacy_exists() else None


def _idempotency_stage(run: JobRun, state: dict[str, Any], bucket: TokenBucket | None, say: Say) -> dict[str, int]:
    """Scan the old table (a day of records at most; 1 RCU per 4 KB consistent) and copy the unexpired ones."""
    counts = {"read": 0, "copied": 0, "expired": 0}
    idempotency.legacy_forget()
    table = _legacy_idempotency_table()
    if table is None:
        say("idempotency: no old table, nothing to copy")
        return counts

    def fence(start: dict[str, Any] | None) -> None:
        run.save_checkpoint(json.dumps({**state, "start": start}))  # the fence, before the page's puts

    for page in idempotency.legacy_copy(start=state.get("start"), page_size=PAGE, bucket=bucket, before_writes=fence):
        counts["read"] += page.read
        counts["copied"] += page.copied
        counts["expired"] += page.expired
        run.progress(stage="idempotency", done=counts["read"])
    say(f"idempotency: {counts['read']} old records read, {counts['copied']} copied, {counts['expired']} expired")
    return counts


def _search_stage(run: JobRun, state: dict[str, Any], say: Say, rebuild: Callable[..., dict[str, Any]]) -> list[Any]:
    tenants = sorted({tenant for tenant, _ in issues.all_project_keys()})
    reports = []
    for tenant in tenants:
        if tenant in state.get("tenants_done", []):
            continue

        def save(checkpoint: dict[str, Any], tenant: str = tenant) -> None:
            run.save_checkpoint(json.dumps({**state, "tenant": tenant, "rebuild": checkpoint}))

        resume = state.get("rebuild") if state.get("tenant") == tenant else None
        report = rebuild(
            tenant=tenant,
            checkpoint=resume,
            save_checkpoint=save,
            progress=say,
            rcu_per_second=settings.SEARCH_INDEX_RCU_PER_SECOND,  # a serving site's reads keep their share
        )
        reports.append(report)
        state.setdefault("tenants_done", []).append(tenant)
        state.pop("rebuild", None)
        run.save_checkpoint(json.dumps(state))
    return reports


def search_rebuild() -> Callable[..., dict[str, Any]]:
    """The search engine's rebuild of one team (``tracker.search.indexing.rebuild``): the hook this upgrade calls."""
    from tracker.search.indexing import rebuild

    return rebuild


def _old_tables_left() -> bool:
    """Whether ``terms`` or the old ``idempotency`` table is still there (DescribeTable: free)."""
    return any(
        tables.describe_table(connection.table_name(base)) is not None for base in (LEGACY_TERMS, idempotency.LEGACY)
    )


def _drop_stage(run: JobRun, bucket: TokenBucket | None, say: Say) -> dict[str, Any]:
    # a record the previous version wrote since the idempotency stage ran is copied before its table goes
    copied = _idempotency_stage(run, {}, bucket, say) if idempotency.legacy_exists() else None
    dropped = []
    for base, old in ((LEGACY_TERMS, True), (idempotency.LEGACY, idempotency.legacy_exists())):
        name = connection.table_name(base)
        if old and tables.describe_table(name) is not None:
            run.fence()
            if not tables.drop_table_if_allowed(name):
                # the serving processes' IAM policy deletes only events tables: an operator's credentials do
                say(f"drop: {name} NOT deleted (this role may not DeleteTable it): delete it as the operator")
                continue
            dropped.append(name)
            say(f"drop: {name} deleted (DeleteTable: no write units)")
    idempotency.legacy_forget()
    return {"copied_again": copied, "dropped": dropped}


STAGES = ("labels", "idempotency", "search", "drop")


def upgrade_search_job(
    run: JobRun,
    *,
    max_wcu: float | None = None,
    say: Say = lambda line: None,
    restart: bool = False,
    drop: bool = False,
) -> dict[str, Any]:
    """Every stage from the saved checkpoint on (``restart``: from the beginning); the report.

    Without ``drop`` the run stops before the drop stage and leaves its checkpoint there.
    """
    saved = None if restart else run.checkpoint()
    state: dict[str, Any] = json.loads(saved) if saved else {"stage": STAGES[0]}
    if saved:
        say(f"resuming at {state['stage']} ({saved})")
    bucket = TokenBucket(max_wcu) if max_wcu else None
    report: dict[str, Any] = {"resumed_from": state if saved else None}
    for stage in STAGES[STAGES.index(state["stage"]) :]:
        if stage == "drop" and not drop and _old_tables_left():
            run.save_checkpoint(json.dumps({"stage": "drop"}))
            say("drop: not yet — once no process of the previous version serves, run with --drop-old-tables")
            report[stage] = "waiting for --drop-old-tables"
            labels.registry_forget()
            return report
        if state.get("stage") != stage:
            state = {"stage": stage}
            run.save_checkpoint(json.dumps(state))
        say(f"{stage}: started")
        if stage == "labels":
            report[stage] = _labels_stage(run, state, bucket, say)
        elif stage == "idempotency":
            report[stage] = _idempotency_stage(run, state, bucket, say)
        elif stage == "search":
            report[stage] = _search_stage(run, state, say, search_rebuild())
        else:
            report[stage] = _drop_stage(run, bucket, say)
    run.save_checkpoint(None)
    labels.registry_forget()
    return report


def labels_check_job(run: JobRun, *, fix: bool = True, say: Say = lambda line: None) -> dict[str, Any]:
    """Every team's label entries against their issues (``issues.team_labels_check``); stale ones repaired."""
    report: dict[str, Any] = {}
    for tenant in sorted({tenant for tenant, _ in issues.all_project_keys()}):
        if fix:
            run.fence()
        checked = issues.team_labels_check(tenant=tenant, fix=fix)
        report[tenant] = {
            "labels": checked.labels,
            "entries": checked.entries,
            "stale": checked.stale,
            "fixed": checked.fixed,
        }
        say(
            f"labels check: {tenant}: {checked.entries} entries of {checked.labels} labels, {checked.stale} stale, "
            f"{checked.fixed} issues repaired"
        )
        run.progress(stage="labels check", team=tenant)
    return report
