"""A finished job's result as its page says it: the answer in one sentence, the facts, the keys or tables it names.

``job_answer`` reads the dict ``tracker.jobs.run_job`` returns (job name, status, seconds,
capacity, and the job's own ``result``) and knows each maintenance job by its name; a job it does
not know still gets a sentence (status, time, capacity) and its top-level figures as facts. The
JSON stays on the page, folded, for whoever needs all of it. No DynamoDB call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ddbmodels.core import connection

METHOD_WORDS = {"scan": "a full scan", "skip-scan": "skip scan", "gsi": "the index", "auto": "auto"}


@dataclass
class Answer:
    """The answer first (``headline``), then facts (label, value), then the list the job found."""

    headline: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    items_heading: str = ""
    items: list[str] = field(default_factory=list)


def _n(value: Any) -> str:
    """A figure without float noise: 12.5, 3, 0.25."""
    if isinstance(value, float):
        return f"{round(value, 3):g}"
    return str(value)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _cost(run: dict[str, Any]) -> str:
    used = run.get("capacity") or {}
    return f"{_n(used.get('rcu', 0))} RCU, {_n(used.get('wcu', 0))} WCU, {_n(run.get('seconds', 0))} s"


def _words(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _method(report: dict[str, Any]) -> str:
    method = str(report.get("method") or "")
    words = METHOD_WORDS.get(method, method)
    if method == "gsi" and report.get("index_name"):
        words = f"the index {report['index_name']}"
    return words


def _distinct_keys(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    report = result.get("report") or {}
    found = int(report.get("distinct_keys") or 0)
    sample = [str(k) for k in result.get("sample") or []]
    stopped = " (stopped early: the count is a floor)" if report.get("stopped") else ""
    table = str(report.get("table", "?"))
    # the issues table's partition keys are its projects' collections: say so
    what = (
        f"{_plural(found, 'project')} (distinct partition keys of {table})"
        if table == connection.table_name("issues")
        else f"{_plural(found, 'distinct partition key')} in {table}"
    )
    answer = Answer(
        headline=(
            f"{what} found by {_method(report)}{stopped}, {_n(report.get('rcu', 0))} RCU, "
            f"{_n(report.get('seconds', 0))} s"
        ),
        items_heading=(
            f"The keys ({'all' if len(sample) >= found else f'the first {len(sample)} of'} {found})" if sample else ""
        ),
        items=sample,
    )
    answer.facts = _report_facts(report)
    return answer


def _report_facts(report: dict[str, Any]) -> list[tuple[str, str]]:
    facts = [
        ("Method", f"{report.get('method')} (asked for {report.get('requested_method')})"),
        ("Why", str(report.get("reason") or "—")),
        ("Requests", _n(report.get("requests", 0))),
        ("Retries", _n(report.get("retries", 0))),
        ("Segments", _n(report.get("segments", 1))),
    ]
    estimates = report.get("estimates") or {}
    if estimates:
        facts.append(("Estimated RCU", ", ".join(f"{name} {_n(rcu)}" for name, rcu in estimates.items())))
    return facts


def _enumerate_projects(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    report = result.get("report") or {}
    projects, tenants = int(result.get("projects") or 0), int(result.get("tenants") or 0)
    return Answer(
        headline=(
            f"{_plural(projects, 'project')} of {_plural(tenants, 'team')} found by {_method(report)}, "
            f"{_n(report.get('rcu', 0))} RCU, {_n(report.get('seconds', 0))} s"
        ),
        facts=_report_facts(report),
    )


def _backfill(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    refreshed, total = int(result.get("refreshed") or 0), int(result.get("collections") or 0)
    facts = [("Orphan collections (no project item)", _n(result.get("orphans", 0)))]
    if result.get("resumed_after"):
        facts.append(("Resumed after", str(result["resumed_after"])))
    headline = f"Counts refreshed for {refreshed} of {_plural(total, 'project')}, {_cost(run)}"
    return Answer(headline=headline, facts=facts)


def _rotate(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    actions = result.get("actions") or []
    changed = [a for a in actions if a.get("action") != "unchanged"]
    return Answer(
        headline=(
            f"Events period {result.get('current')} is current, {result.get('next')} next: "
            f"{_plural(len(changed), 'table')} changed, {_cost(run)}"
        ),
        items_heading="Tables",
        items=[f"{a.get('table')}: {a.get('action')}{f' — {d}' if (d := a.get('detail')) else ''}" for a in actions],
    )


def _archive(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    tables = result.get("tables") or []
    failed = [t for t in tables if not t.get("ok", True)]
    what = "would archive" if result.get("dry_run") else "archived"
    headline = f"{_plural(len(tables), 'events table')} past retention {what}" if tables else "No table past retention"
    if failed:
        headline += f", {len(failed)} not (see below)"
    return Answer(
        headline=f"{headline}, {_cost(run)}",
        items_heading="Tables" if tables else "",
        items=[
            f"{t.get('table')}: {t.get('action')} ({t.get('items', 0)} items, {t.get('bytes', 0)} bytes)"
            f"{f' — {d}' if (d := t.get('detail')) else ''}"
            for t in tables
        ],
    )


def _restore(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    return Answer(
        headline=(
            f"{result.get('table')} restored from {result.get('source')}: "
            f"{_plural(int(result.get('items') or 0), 'item')}, {_cost(run)}"
        )
    )


def _reconcile(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    examined = int(result.get("examined") or 0)
    keys = ("completed", "rolled_back", "detached", "moved_on", "errors", "partial_files_removed", "files_deleted")
    return Answer(
        headline=f"{_plural(examined, 'attachment')} stuck in flight examined, {_cost(run)}",
        facts=[(_words(k), _n(result.get(k, 0))) for k in keys],
    )


def _offboard(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    exported = result.get("exported") or {}
    remaining = {k: v for k, v in (result.get("remaining") or {}).items() if v}
    state = "finished" if result.get("finished") else f"not finished ({_plural(sum(remaining.values()), 'item')} left)"
    return Answer(
        headline=f"Offboarding {state}: {_plural(int(exported.get('items') or 0), 'item')} exported, {_cost(run)}",
        facts=[
            ("Archive", str(result.get("archive") or "—")),
            ("Memberships removed", _n(result.get("memberships_removed", 0))),
            ("Uploads deleted", _n(result.get("uploads_deleted", 0))),
        ],
        items_heading="Left (written after the export)" if remaining else "",
        items=[f"{table}: {count}" for table, count in remaining.items()],
    )


def _import(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    summary = result.get("summary") or {}
    used = run.get("capacity") or {}
    if result.get("status") != "done":
        stopped = f"Import into {result.get('project')}: {result.get('status')}. {result.get('error', '')}"
        return Answer(headline=stopped.strip())
    return Answer(
        headline=(
            f"Import into {result.get('project')}: {_plural(int(summary.get('issues') or 0), 'issue')} and "
            f"{_plural(int(summary.get('comments') or 0), 'comment')} saved, {_n(summary.get('seconds', 0))} s"
        ),
        facts=[
            (
                "Import writes (issues, their list and search entries, comments)",
                f"{_n(summary.get('wcu', 0))} WCU for {summary.get('written', 0)} of {summary.get('items', 0)} items "
                f"(floor {summary.get('minimum_wcu', 0)})",
            ),
            (
                "With the load's progress records (Capacity › by access pattern: issues.import)",
                f"{_n(summary.get('load_wcu', summary.get('wcu', 0)))} WCU",
            ),
            (
                "Whole job run, with the project, counts and the import's record (Capacity › by job; Jobs history)",
                f"{_n(used.get('wcu', 0))} WCU, {_n(used.get('rcu', 0))} RCU",
            ),
            ("Write rate", f"{_n(summary.get('wcu_per_second', 0))} WCU/s (limit {_n(summary.get('max_wcu', 0))})"),
        ],
    )


KINDS = {
    "distinct_keys": _distinct_keys,
    "enumerate_projects": _enumerate_projects,
    "backfill_project_counts": _backfill,
    "rotate_event_tables": _rotate,
    "archive_event_tables": _archive,
    "restore_event_table": _restore,
    "reconcile_attachments": _reconcile,
    "offboard_tenant": _offboard,
    "import_upload": _import,
}


def _generic(run: dict[str, Any], result: dict[str, Any]) -> Answer:
    facts = [(_words(k), _n(v)) for k, v in result.items() if isinstance(v, (str, int, float, bool)) and v != ""]
    return Answer(headline=f"Done, {_cost(run)}", facts=facts)


def job_answer(run: dict[str, Any]) -> Answer:
    """What a finished run found or did, in words (``run`` as ``run_job`` returns it)."""
    if run.get("status") == "skipped":
        return Answer(headline=f"Skipped: {run.get('reason', 'another run holds the lock')}.")
    result = run.get("result")
    kind = str(run.get("job") or "").split(":", 1)[0]
    if not isinstance(result, dict):
        return Answer(headline=f"{str(run.get('status') or 'done').capitalize()}, {_cost(run)}")
    return KINDS.get(kind, _generic)(run, result)
