"""The workload and row of the edit form's milestone move (``ddbmodels.issues.issue_update(milestone=)``;
``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
The edit moves ``ms`` and the ``milestone_status`` key ``xm`` in the issue's own write (a transaction with the
milestone's ConditionCheck when it moves INTO one: ``ddbmodels.issues.guarded``); its floor is worked
out from the issue as stored before and after (``IssueWrite``: the item's larger image, each list-index entry put,
deleted, moved or rewritten, each ``labels`` entry rewritten), never from what the meter reports. Its issues live
in a project of their own (``EDT``), so the other rows' projects stay as they expect. The services read no
milestone before such a write any more (the check is the write's); the bulk bar's one consistent GetItem is
``milestones.get``'s row.
"""

from __future__ import annotations

from ddbmodels import issues as ddb_issues
from ddbmodels import milestones as ddb_milestones
from devtools import bench
from devtools.bench import Cost, check
from pattern_rows.bulk import changed
from pattern_rows.issue_writes import IssueWrite
from pattern_rows.rows import ROWS, Row, issue_write
from pattern_rows.workload import TENANT, Workload

PROJECT = "EDT"
SETUP_TOKEN = "bench-edit-setup"  # noqa: S105  (a form's token, no secret)

ISSUE_EDIT_ROWS: dict[str, Row] = {
    "issues.update (milestone move)": issue_write(
        "into a milestone: TransactWriteItems [ConditionCheck the milestone open (2 WCU per KB of it), Update on "
        "the version and the milestone read (2 WCU per KB of the issue's larger image)]; out of one: a conditional "
        "UpdateItem (1 WCU per KB); + its `milestone_status` entry moved (a delete and a put: 2 WCU), put or deleted "
        "(1 WCU) + each other list-index entry rewritten (1 WCU); then each `labels` entry rewritten, 1 WCU",
        Cost(0, 0, 1),
    ),
    "issues.change (milestone move)": changed(
        "the bulk bar's or the issue page's move into a milestone: TransactWriteItems [ConditionCheck the milestone "
        "open: 2 WCU per KB of it; Update of the fields + `bk` on the version: 2 WCU per KB of the issue] + its "
        "`milestone_status` entry put and each other list-index entry rewritten (1 WCU each)"
    ),
    "issues.create (in a milestone)": issue_write(
        "consistent Query Limit 1 (1 RCU) + TransactWriteItems [ConditionCheck the milestone open: 2 WCU per KB of "
        "it; Put the issue: 2 WCU per KB] + its 4 list-index entries, `milestone_status` too (1 WCU each)",
        Cost(1, 0, 2),
    ),
}
ROWS.update(ISSUE_EDIT_ROWS)


def run_issue_edit(run: Workload) -> None:
    """An issue with a label in milestone v1.2 edited into v1.3 (its title too), then out of any milestone."""

    def setup() -> tuple[str, str, int]:
        ddb_issues.project_create(tenant=TENANT, key=PROJECT, name="Edit form", created_by="bench")
        made = [
            ddb_milestones.milestone_create(
                tenant=TENANT, project_key=PROJECT, name=name, due=None, created_by="bench"
            )[0].milestone_id
            for name in ("v1.2", "v1.3")
        ]
        issue = ddb_issues.issue_create(
            tenant=TENANT, project_key=PROJECT, title="Sign-in times out", reporter="bench", labels={"ui"}
        ).item
        ddb_issues.issue_change(issue, token=SETUP_TOKEN, milestone=made[0])
        return made[0], made[1], int(issue.number)

    first, second, number = bench.unmetered(setup)
    for title, to in (("Sign-in times out on slow networks", second), ("Sign-in times out (any milestone)", None)):
        issue = bench.unmetered(
            lambda: ddb_issues.issue_get(tenant=TENANT, project_key=PROJECT, number=number, consistent=True)
        )
        assert issue is not None
        edited = run(
            "issues.update (milestone move)",
            ddb_issues.issue_update,
            issue,
            title=title,
            description="",
            priority=issue.priority,
            assignee=None,
            labels=["ui"],
            milestone=to,
            basis=IssueWrite(TENANT, PROJECT, number),
        )
        key = f"{TENANT}#{PROJECT}#{to}#open" if to else None
        check((edited.milestone, edited.list_milestone_status) == (to, key), f"moved to {edited.milestone}")
    check(first != second, "two milestones")
    created = run(
        "issues.create (in a milestone)",
        ddb_issues.issue_create,
        tenant=TENANT,
        project_key=PROJECT,
        title="Sign-out keeps the session",
        reporter="bench",
        milestone=second,
        basis=IssueWrite(TENANT, PROJECT),
    )
    check(created.item.milestone == second, f"created in {created.item.milestone}")
    moved = run(
        "issues.change (milestone move)",
        ddb_issues.issue_change,
        created.item,
        token="bench-move",  # noqa: S106  (a form's token, no secret)
        milestone=first,
        basis=IssueWrite(TENANT, PROJECT, int(created.item.number)),
    )
    check(moved.issue.milestone == first, f"moved to {moved.issue.milestone}")
