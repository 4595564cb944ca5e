"""The workload and rows of bulk edit (``tracker.services.bulk``; ``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
The bulk page reads the chosen issues in one BatchGetItem (``issues.issues_for_change``), then changes each with
``issues.issue_change`` on the version its list row showed. Its issues live in a project of their own (``BLK``),
so the other rows' projects (the board's columns, the palette's rows) stay as they expect.
"""

from __future__ import annotations

from ddbmodels import issues as ddb_issues
from ddbmodels import labels as ddb_labels
from ddbmodels.issues import IssueItem
from devtools import bench
from devtools.bench import Cost, check, read_units
from pattern_rows.issue_writes import IssueWrite
from pattern_rows.rows import ROWS, Row, issue_write
from pattern_rows.workload import TENANT, Workload

PROJECT = "BLK"
TOKEN = "bench-bulk-form"  # noqa: S105  (the bulk form's idempotency key, no secret)
LABELS = ("ui", "perf", "bug")


def changed(why: str) -> Row:
    """An ``issue_change`` that wrote: the issue write's floor, worked out from the changed issue (``Change.issue``)."""
    row = issue_write(why, Cost(0, 0, 1))
    assert row.local is not None
    local = row.local[1]
    return Row(
        row.why,
        lambda result, basis: row.floor(result.issue, basis),
        (row.local[0], lambda result, basis: local(result.issue, basis)),
    )


def got_many(found: dict[int, IssueItem], basis: list[int]) -> Cost:
    """BatchGetItem: 0.5 RCU per started 4 KB of each whole item (``basis``: their sizes; projecting saves nothing)."""
    check(len(found) == len(basis), f"the batch found {len(found)} of {len(basis)} issues")
    return Cost(sum(read_units(size) for size in basis), 0, 1)


BULK_ROWS: dict[str, Row] = {
    "issues.get_for_change (bulk: 3 issues)": Row(
        "BatchGetItem of the chosen issues without their descriptions: 0.5 RCU per started 4 KB of each whole item "
        "(DynamoDB charges the item, not the projection), one request",
        got_many,
    ),
    "issues.change (status, 2 labels)": changed(
        "conditional UpdateItem of the fields that change + `bk`, `bc`: the issue (1 WCU per KB of the larger image) "
        "+ each list-index entry moved by the new status (a delete and a put: 2 WCU) or rewritten (1 WCU); then each "
        "`labels` entry moved, put or deleted on its own (1 WCU)"
    ),
    "issues.change (labels add)": changed(
        "the same: the issue + each list-index entry rewritten (1 WCU) + the new label's entry put and the other's "
        "rewritten (1 WCU each)"
    ),
    "issues.change (replayed token)": Row(
        "the UpdateItem refused (DynamoDB charges it 1 WCU per KB, but its error answer reports no capacity: the "
        "meter counts a conditional failure) + consistent GetItem ≤ 4 KB finding this form's token (1 RCU)",
        lambda _result, _basis: Cost(1, 0, 2),
    ),
}
ROWS.update(BULK_ROWS)


def run_bulk(run: Workload) -> None:
    """Three issues of a bulk edit read at once; one moved to in progress with a label swapped, one given a label;
    the first one's change sent again by the same form (a stale copy: refused, then recognised)."""
    bench.unmetered(lambda: ddb_labels.registry_ensure(TENANT, LABELS))

    def setup() -> list[int]:
        ddb_issues.project_create(tenant=TENANT, key=PROJECT, name="Bulk edit", created_by="bench")
        made = [
            ddb_issues.issue_create(tenant=TENANT, project_key=PROJECT, title=t, reporter="bench", labels=lb).item
            for t, lb in (("Slow list", {"ui", "perf"}), ("Typo on the login page", {"ui"}), ("Old browser", set()))
        ]
        return [int(issue.number) for issue in made]

    numbers = bench.unmetered(setup)
    sizes = bench.unmetered(
        lambda: [
            bench.model_size([ddb_issues.issue_get(tenant=TENANT, project_key=PROJECT, number=n)]) for n in numbers
        ]
    )
    found = run(
        "issues.get_for_change (bulk: 3 issues)",
        ddb_issues.issues_for_change,
        tenant=TENANT,
        project_key=PROJECT,
        numbers=numbers,
        basis=sizes,
    )
    first, second = found[numbers[0]], found[numbers[1]]
    stale = IssueItem.from_raw_data(first.serialize(null_check=False))  # the same form's copy, sent again below

    moved = run(
        "issues.change (status, 2 labels)",
        ddb_issues.issue_change,
        first,
        token=TOKEN,
        status="in_progress",
        labels_add={"bug"},
        labels_remove={"perf"},
        basis=IssueWrite(TENANT, PROJECT, numbers[0]),
    )
    check(
        (moved.issue.status, set(moved.issue.labels or ())) == ("in_progress", {"ui", "bug"}), f"moved: {moved.after}"
    )
    added = run(
        "issues.change (labels add)",
        ddb_issues.issue_change,
        second,
        token=TOKEN,
        labels_add={"bug"},
        basis=IssueWrite(TENANT, PROJECT, numbers[1]),
    )
    check(set(added.issue.labels or ()) == {"ui", "bug"}, f"added: {added.after}")
    again = run(
        "issues.change (replayed token)",
        ddb_issues.issue_change,
        stale,
        token=TOKEN,
        status="in_progress",
        labels_add={"bug"},
        labels_remove={"perf"},
    )
    check(again.replayed and not again.changed, f"the same form again: {again}")
