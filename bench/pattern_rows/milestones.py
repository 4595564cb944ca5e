"""The workload and rows of the milestones table (a project's milestones; ``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
A milestone's issues (``milestone:"v1.2"``) are an issue list: ``bench/issue_lists.py`` measures it flat.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ddbmodels import milestones
from devtools import bench
from devtools.bench import Cost, read_units
from pattern_rows.issue_writes import LOCAL_TRANSACTION
from pattern_rows.rows import ROWS, Row, fixed
from pattern_rows.workload import PROJECT, TENANT, Workload

NAMES = ("v1.0", "v1.1", "v1.2", "v2.0")


def listed(found: list[milestones.MilestoneItem], _basis: Any) -> Cost:
    return Cost(read_units(bench.model_size(found)), 0, 1)


def created(_found: Any, basis: int) -> Cost:
    """GetItem of the form's id (consistent, 1 RCU: this form's already?) + the project's milestones Query
    (consistent: 1 RCU per started 4 KB, ``basis`` bytes) + TransactWriteItems [Put milestone, Put name claim],
    each ≤ 1 KB (2 WCU each in a transaction)."""
    return Cost(1 + 2 * read_units(basis), 4, 3)


MILESTONE_ROWS: dict[str, Row] = {
    "milestones.list": Row(
        "Query of the project's partition (a milestone ≈ 250 B): 0.5 RCU per started 4 KB, one request", listed
    ),
    "milestones.create": Row(
        "consistent GetItem of the form's id (1 RCU) + consistent Query of the project's milestones, the name check "
        "(1 RCU per started 4 KB) + TransactWriteItems [Put milestone, Put name claim], attribute_not_exists, "
        "≤ 1 KB each (4 WCU)",
        created,
        (  # the project's first milestone: its name check finds nothing; every create: the two puts charged once
            f"{bench.LOCAL_EMPTY_QUERY}; and {LOCAL_TRANSACTION}",
            lambda _found, basis: Cost(-1 if basis == 0 else 0, -2),
        ),
    ),
    "milestones.close": Row("UpdateItem st, cl on the version ≤ 1 KB (1 WCU)", fixed(0, 1, 1)),
    "milestones.progress": Row(
        "UpdateItem ic per milestone whose counts changed ≤ 1 KB (1 WCU each), none for the others: no read",
        lambda written, _basis: Cost(0, written, written),
    ),
}
ROWS.update(MILESTONE_ROWS)


def partition_bytes() -> int:
    """The stored size of the project's milestones (read unmetered): what the name check's Query reads."""
    found = bench.unmetered(lambda: milestones.milestone_list(tenant=TENANT, project_key=PROJECT, consistent=True))
    return bench.model_size(found)


def run_milestones(run: Workload) -> None:
    """Four milestones created (each after the name check), the list read, progress written, one closed."""
    for n, name in enumerate(NAMES):
        before = partition_bytes()
        _item, made = run(
            "milestones.create",
            milestones.milestone_create,
            tenant=TENANT,
            project_key=PROJECT,
            name=name,
            due=date(2026, 12, 1 + n),
            created_by="bench",
            basis=before,
        )
        bench.check(made, f"milestone {name} was not created")
    found = run("milestones.list", milestones.milestone_list, tenant=TENANT, project_key=PROJECT)
    bench.check([m.name for m in found] == list(NAMES), f"the list is {[m.name for m in found]}")
    counts = {found[0].milestone_id: {"open": 3, "resolved": 2}, found[1].milestone_id: {"open": 1}}
    written = run("milestones.progress", milestones.progress_write, found, counts)
    bench.check(written == 2, f"{written} milestones' progress written, 2 changed")
    closed = run("milestones.close", milestones.milestone_set_state, found[3], state="closed", expected_version=1)
    bench.check(closed.state == "closed", "the milestone was not closed")
