"""The workload and rows of a team's managed labels (``ddbmodels.labels.catalogue``; ``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
The catalogue, the autocomplete's prefix page, a save and one issue's move are rows of ``pattern_rows.rows``;
here are the reads and writes of a rename or delete: its confirm page's count (one page) and the job's (every
page), the label read (consistent for a form, eventually consistent for the progress answer), the busy mark,
the job's work list and its progress. Each floor is worked out from the sizes of the items the call reads or
writes (``devtools.bench`` size rules), read back unmetered around the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ddbmodels import issues as ddb_issues
from ddbmodels import labels as ddb_labels
from ddbmodels.core import connection
from devtools import bench
from devtools.bench import Cost, check, read_units, update_units
from pattern_rows.rows import ROWS, Row, counted
from pattern_rows.workload import PROJECT, SPLIT, TENANT, Workload

BIG = "many"  # a label on more issues than the confirm page counts (IN_REQUEST_MAX = 25)
BIG_ISSUES = 30
COUNTED = 26  # the confirm page's count: Limit IN_REQUEST_MAX + 1 ("more than 25")


def registry_bytes(name: str) -> int:
    """The stored size of the label's registry item (read unmetered)."""
    item = bench.unmetered(
        lambda: connection.client().get_item(
            TableName=connection.table_name("labels"), Key=ddb_labels.registry_item(TENANT, name)
        )
    )["Item"]
    return bench.item_size(item)


def entry_bytes(name: str, limit: int | None = None) -> list[int]:
    """The stored sizes of the label's first ``limit`` entries (all without), by key order (read unmetered)."""
    request: dict[str, Any] = {
        "TableName": connection.table_name("labels"),
        "KeyConditionExpression": "lk = :k",
        "ExpressionAttributeValues": {":k": {"S": ddb_labels.label_key(TENANT, name)}},
    }
    if limit is not None:
        request["Limit"] = limit
    return [bench.item_size(item) for item in bench.unmetered(lambda: connection.client().query(**request))["Items"]]


def count_read(_count: int, sizes: list[int]) -> Cost:
    """One consistent Query page (Select COUNT still reads the items it counts): 1 RCU per started 4 KB."""
    return Cost(read_units(sum(sizes), consistent=True), 0, 1)


def got(consistent: bool) -> Callable[[Any, int], Cost]:
    return lambda _label, size: Cost(read_units(size, consistent=consistent), 0, 1)


def updated(_result: Any, sizes: tuple[int, Callable[[], int]]) -> Cost:
    """One UpdateItem: 1 WCU per started KB of the larger of the item before and after (read unmetered)."""
    before, after = sizes
    return Cost(0, update_units(before, after()), 1)


def work_list(entries: list[dict[str, Any]], _basis: Any) -> Cost:
    return Cost(read_units(sum(bench.item_size(entry) for entry in entries), consistent=True), 0, 1)


LABEL_ROWS: dict[str, Row] = {
    "labels.count": Row(
        f"Query of the label's entries, Select COUNT, consistent, Limit {COUNTED} (the confirm page and its POST: "
        "'more than 25' beyond): 1 RCU per started 4 KB of the entries counted, one request",
        count_read,
    ),
    "labels.count (the job: every page)": Row(
        "the same Query without Limit, page after page (the job of a change too big for the request, once): "
        "1 RCU per started 4 KB of every entry, one request per 1 MB",
        count_read,
    ),
    "labels.get": Row("GetItem of the label's registry item, consistent: 1 RCU per started 4 KB", got(True)),
    "labels.get (progress, eventually consistent)": Row(
        "GetItem of the label's registry item (the labels page asks every 3 s while a change runs): 0.5 RCU per "
        "started 4 KB",
        got(False),
    ),
    "labels.mark": Row(
        "UpdateItem of the registry item conditioned on its version (busy with total, form key and who; or back in "
        "use): 1 WCU per started KB of the larger image",
        updated,
    ),
    "labels.progress": Row(
        "UpdateItem SET ld (and lt, counted by the job) while busy: 1 WCU per started KB of the larger image", updated
    ),
    "labels.work": Row(
        "Query of the label's entries, Limit 25, consistent (the next batch to move): 1 RCU per started 4 KB of "
        "the entries returned, one request",
        work_list,
    ),
}
ROWS.update(LABEL_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)  # the variants, each metered


def run_label_prefix(run: Workload) -> None:
    """Autocomplete's labels (tracker.selectors.assist.label_suggestions): one Query of the team's registry,
    Limit 15 (10 shown, a few more for the renamed or deleted ones it drops). Its people are one SQL query of
    Django's memberships: no DynamoDB, so no row."""
    names = ["bug", "build", "burn", "docs", *(f"bu{n:02}" for n in range(20))]
    bench.unmetered(lambda: ddb_labels.registry_ensure(TENANT, names))
    found = run("labels.prefix (autocomplete)", ddb_labels.label_prefix_page, TENANT, "bu", limit=15)
    wanted = sorted(name for name in names if name.startswith("bu"))[:15]
    check([label.name for label in found] == wanted, f"the prefix bu found {[label.name for label in found]}")


def run_labels(run: Workload) -> None:
    """A team's managed labels (ddbmodels.labels.catalogue): the catalogue, a save, and one issue of a rename
    (the labels page's per-issue move: ``issues.issue_change`` taking bug off and putting defect on, 2 labels)."""
    names = ["bug", "defect", "ui"]
    bench.unmetered(lambda: ddb_labels.registry_ensure(TENANT, names))
    found = run("labels.catalogue", ddb_labels.label_catalogue, TENANT)
    check({"bug", "defect", "ui"} <= {label.name for label in found}, "the catalogue lacks the labels registered")
    saved = run(
        "labels.save", ddb_labels.label_save, TENANT, "bug", colour="red", description="Broken", expected_version=0
    )
    check((saved.colour, saved.version) == ("red", 1), f"the save stored {saved}")
    made = bench.unmetered(
        lambda: ddb_issues.issue_create(
            tenant=TENANT, project_key=PROJECT, title="Rename me", reporter="bench", labels={"bug", "ui"}
        ).item
    )
    # Never edited since its create: its entries carry the version the create's put gave it, so the copy is current
    # (before, they were one behind and the move took the changer's refused path: +1 WCU, +2 RCU).
    change = run(
        "issues.change (label rename, 2 labels)",
        ddb_issues.issue_change,
        ddb_issues.issue_from_entry(TENANT, bench.unmetered(lambda: ddb_labels.label_entries(TENANT, "bug"))[0]),
        token="bench-rename",  # noqa: S106  (the changer's form token, no secret)
        labels_remove={"bug"},
        labels_add={"defect"},
    )
    check(set(change.issue.labels or ()) == {"defect", "ui"}, f"the rename left {change.issue.labels}")
    check(change.issue.version == made.version + 1, f"the rename moved v{made.version} to v{change.issue.version}")
    run_label_change(run)


def run_label_change(run: Workload) -> None:
    """The reads and writes of a delete too big for the request (``tracker.services.labels``): the confirm's
    count of one page, the form's and the progress answer's label reads, the busy mark, the job's count of every
    page, its progress and its work list; then the label is put back in use (a mark from busy, nothing moved)."""

    def labelled() -> None:
        for n in range(BIG_ISSUES):
            ddb_issues.issue_create(
                tenant=TENANT, project_key=PROJECT, title=f"Labelled {n}", reporter="bench", labels={BIG}
            )

    bench.unmetered(labelled)
    label = run("labels.get", ddb_labels.label_get, TENANT, BIG, basis=registry_bytes(BIG))
    check(label is not None and label.in_use, f"the label {BIG} is {label}")
    assert label is not None
    count = run(
        "labels.count",
        ddb_labels.label_issue_count,
        TENANT,
        BIG,
        limit=COUNTED - 1,
        basis=entry_bytes(BIG, COUNTED),
    )
    check(count == COUNTED, f"the confirm's count found {count}, not {COUNTED} ('more than 25')")
    busy = run(
        "labels.mark",
        ddb_labels.label_mark,
        TENANT,
        BIG,
        state=ddb_labels.REMOVING,
        expected_version=label.version,
        total=0,
        form_key="01JBENCHBENCHBENCHBENCHBENC",
        by="bench",
        basis=(registry_bytes(BIG), lambda: registry_bytes(BIG)),
    )
    check(busy.state == ddb_labels.REMOVING, f"the mark left {busy.state!r}")
    every = run("labels.count (the job: every page)", ddb_labels.label_issue_count, TENANT, BIG, basis=entry_bytes(BIG))
    check(every == BIG_ISSUES, f"the job's count found {every}, not {BIG_ISSUES}")
    run(
        "labels.progress",
        ddb_labels.label_progress,
        TENANT,
        BIG,
        done=0,
        total=every,
        basis=(registry_bytes(BIG), lambda: registry_bytes(BIG)),
    )
    seen = run(
        "labels.get (progress, eventually consistent)",
        ddb_labels.label_get,
        TENANT,
        BIG,
        consistent=False,
        basis=registry_bytes(BIG),
    )
    check(seen is not None and seen.total == every, f"the progress answer read {seen}")
    batch = run("labels.work", ddb_labels.label_entries, TENANT, BIG, limit=25)
    check(len(batch) == 25, f"the work list gave {len(batch)} entries, not 25")
    back = run(
        "labels.mark",
        ddb_labels.label_mark,
        TENANT,
        BIG,
        state=ddb_labels.IN_USE,
        expected_version=busy.version,
        basis=(registry_bytes(BIG), lambda: registry_bytes(BIG)),
    )
    check(back.in_use and not back.form_key, f"the mark back left {back}")
