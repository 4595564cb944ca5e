"""The workload and rows of the milestones table (a project's milestones; ``bench/patterns.py``).

Kept in a module of their own: ``ROWS`` (``pattern_rows.rows``) takes these rows when this module is imported.
A milestone's issues (``milestone:"v1.2"``) are an issue list: ``bench/issue_lists.py`` measures it flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from ddbmodels import milestones
from ddbmodels.core import capacity, connection
from ddbmodels.core.team_data import Shards, Team
from ddbmodels.milestones.team import milestone_pages
from devtools import bench
from devtools.bench import Cost, read_units, update_units, write_units
from pattern_rows.issue_writes import LOCAL_TRANSACTION
from pattern_rows.rows import ROWS, Row, counted
from pattern_rows.workload import PROJECT, SPLIT, TENANT, Workload

NAMES = ("v1.0", "v1.1", "v1.2", "v2.0")


def listed(found: list[milestones.MilestoneItem], _basis: Any) -> Cost:
    return Cost(read_units(bench.model_size(found)), 0, 1)


def claim_bytes(pk: str, name: str, milestone_id: str) -> int:
    """The stored size of a name claim (``writes._claim``: pk, m = "name#<casefold name>", of = the id)."""
    return bench.item_size({"pk": {"S": pk}, "m": {"S": "name#" + name.casefold()}, "of": {"S": milestone_id}})


def transaction(charges: list[int]) -> tuple[int, int]:
    """A transaction's WCU from its items' charges (1 WCU per started KB each): DynamoDB's 2× each, and DynamoDB
    Local's difference from it (it adds each distinct charge once: ``LOCAL_TRANSACTION``)."""
    return 2 * sum(charges), 2 * sum(set(charges)) - 2 * sum(charges)


def create_charges(found: tuple[milestones.MilestoneItem, bool]) -> list[int]:
    """The create's transaction: the milestone put and its name claim put, each by its own size."""
    item = found[0]
    return [write_units(bench.model_size([item])), write_units(claim_bytes(item.pk, item.name, item.milestone_id))]


def created(found: tuple[milestones.MilestoneItem, bool], basis: int) -> Cost:
    """GetItem of the form's id (consistent, 1 RCU: this form's already?) + the project's milestones Query
    (consistent: 1 RCU per started 4 KB, ``basis`` bytes) + TransactWriteItems [Put milestone, Put name claim]
    (2 WCU per started KB of each item)."""
    return Cost(1 + read_units(basis, consistent=True), transaction(create_charges(found))[0], 3)


@dataclass(frozen=True)
class Edit:
    """What an edit's floor is worked out from: the milestone's size before, the name check's Query (bytes of the
    project's milestones; None: not renamed) and the old name's claim (size)."""

    before: int
    listed: int | None = None
    old_claim: int = 0


def edited(found: milestones.MilestoneItem, basis: Edit) -> Cost:
    """Same name: UpdateItem on the version, the larger of the item before and after (1 WCU per started KB)."""
    return Cost(0, update_units(basis.before, bench.model_size([found])), 1)


def rename_charges(found: milestones.MilestoneItem, basis: Edit) -> list[int]:
    """The rename's transaction: the milestone's update, the new name's claim put, the old one's delete."""
    new_claim = claim_bytes(found.pk, found.name, found.milestone_id)
    after = bench.model_size([found])
    return [update_units(basis.before, after), write_units(new_claim), write_units(basis.old_claim)]


def renamed(found: milestones.MilestoneItem, basis: Edit) -> Cost:
    """The name check (consistent Query of the project's milestones) + TransactWriteItems [Update, Put new claim,
    Delete old claim] (2 WCU per started KB of each) + the milestone read back (consistent GetItem)."""
    reads = read_units(basis.listed or 0, consistent=True) + read_units(bench.model_size([found]), consistent=True)
    return Cost(reads, transaction(rename_charges(found, basis))[0], 3)


def claimed(pk: str, name: str) -> str | None:
    """The milestone id the name's claim holds (read unmetered; None: no claim): the transactions' floors count
    the claim puts and deletes, which DynamoDB Local's charge for a transaction cannot show."""
    key = {"pk": {"S": pk}, "m": {"S": "name#" + name.casefold()}}
    table = milestones.MilestoneItem.Meta.table_name
    found = bench.unmetered(lambda: connection.client().get_item(TableName=table, Key=key, ConsistentRead=True))
    return found["Item"]["of"]["S"] if "Item" in found else None


def raw_partition() -> list[dict[str, Any]]:
    """The project's whole partition (milestones and name claims), read unmetered."""
    request = {
        "TableName": milestones.MilestoneItem.Meta.table_name,
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": milestones.partition_key(TENANT, PROJECT)}},
        "ConsistentRead": True,
    }
    return list(bench.unmetered(lambda: connection.client().query(**request))["Items"])


def checked(found: milestones.ClaimsChecked, basis: int) -> Cost:
    """Consistent Query of the partition, claims too (``basis`` bytes) + PutItem of each claim written, ≤ 1 KB."""
    return Cost(read_units(basis, consistent=True), found.written, 1 + found.written)


def offboarding_pages(found: list[list[dict[str, Any]]], _basis: Any) -> Cost:
    """Consistent Query per project of the team: 1 RCU per started 4 KB of each page's items (claims too)."""
    return Cost(
        sum(read_units(sum(bench.item_size(i) for i in page), consistent=True) for page in found), 0, len(found)
    )


MILESTONE_ROWS: dict[str, Row] = {
    "milestones.list": Row(
        "Query of the project's partition (a milestone ≈ 250 B): 0.5 RCU per started 4 KB, one request", listed
    ),
    "milestones.create": Row(
        "consistent GetItem of the form's id (1 RCU) + consistent Query of the project's milestones, the name check "
        "(1 RCU per started 4 KB) + TransactWriteItems [Put milestone, Put name claim], attribute_not_exists: "
        "2 WCU per started KB of each, from the items' sizes",
        created,
        (  # the project's first milestone: its name check finds nothing
            f"{bench.LOCAL_EMPTY_QUERY}; and {LOCAL_TRANSACTION}",
            lambda found, basis: Cost(-1 if basis == 0 else 0, transaction(create_charges(found))[1]),
        ),
    ),
    "milestones.get": Row(
        "GetItem, consistent: 1 RCU per started 4 KB of the milestone",
        lambda found, _basis: Cost(read_units(bench.model_size([found]), consistent=True), 0, 1),
    ),
    "milestones.update (edit)": Row(
        "UpdateItem on the version, name unchanged: 1 WCU per started KB of the larger of the item before and after",
        edited,
    ),
    "milestones.update (rename)": Row(
        "consistent Query of the project's milestones (the name check, 1 RCU per started 4 KB) + TransactWriteItems "
        "[Update on the version, Put the new name's claim, Delete the old one's]: 2 WCU per started KB of each, "
        "from the items' sizes + consistent GetItem of the milestone as saved (1 RCU per started 4 KB)",
        renamed,
        (LOCAL_TRANSACTION, lambda found, basis: Cost(0, transaction(rename_charges(found, basis))[1])),
    ),
    "milestones.close": Row(
        "UpdateItem st, cl and lr (the close's outcome: who, moved, refused issues, why) on the version: 1 WCU per "
        "started KB of the larger of the item before and after",
        lambda found, before: Cost(0, update_units(before, bench.model_size([found])), 1),
    ),
    "milestones.close_moved": Row(
        "UpdateItem cm (the count a running close moved so far) conditioned on st and ck, the version untouched: "
        "1 WCU per started KB of the larger of the item before and after",
        lambda found, basis: Cost(0, update_units(basis[0], bench.model_size([basis[1]])), 1),
    ),
    "milestones.progress": Row(
        "UpdateItem ic per milestone whose counts changed ≤ 1 KB (1 WCU each), none for the others: no read",
        lambda written, _basis: Cost(0, written, written),
    ),
    "milestones.claims_check": Row(
        "consistent Query of the project's partition, name claims too (1 RCU per started 4 KB) + PutItem "
        "attribute_not_exists of each missing claim ≤ 1 KB (1 WCU)",
        checked,
    ),
    "tenants.milestones": Row(
        "offboarding's read: consistent Query of each project's partition, 1 RCU per started 4 KB of its page",
        offboarding_pages,
    ),
}
ROWS.update(MILESTONE_ROWS)
SPLIT.update(pattern for pattern, rows in counted(ROWS).items() if rows > 1)  # the variants, each metered


def partition_bytes() -> int:
    """The stored size of the project's milestones (read unmetered): what the name check's Query reads."""
    found = bench.unmetered(lambda: milestones.milestone_list(tenant=TENANT, project_key=PROJECT, consistent=True))
    return bench.model_size(found)


def run_milestones(run: Workload) -> None:
    """Four milestones created (each after the name check), the list read, progress written, one closed."""
    for n, name in enumerate(NAMES):
        before = partition_bytes()
        item, made = run(
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
        bench.check(claimed(item.pk, name) == item.milestone_id, f"milestone {name}'s name claim was not written")
    found = run("milestones.list", milestones.milestone_list, tenant=TENANT, project_key=PROJECT)
    bench.check([m.name for m in found] == list(NAMES), f"the list is {[m.name for m in found]}")
    counts = {found[0].milestone_id: {"open": 3, "resolved": 2}, found[1].milestone_id: {"open": 1}}
    written = run("milestones.progress", milestones.progress_write, found, counts)
    bench.check(written == 2, f"{written} milestones' progress written, 2 changed")
    outcome = {  # a close's end as the job keeps it: moved some, one issue refused
        "by": "bench",
        "at": "2026-12-01T10:00:00+00:00",
        "token": milestones.new_milestone_id(),
        "closed": True,
        "moved": 24,
        "to": NAMES[0],
        "refused": {"WEB-1234": "changed meanwhile"},
    }
    before = bench.model_size([found[3]])
    closed = run(
        "milestones.close",
        milestones.milestone_set_state,
        found[3],
        state="closed",
        expected_version=1,
        outcome=outcome,
        basis=before,
    )
    bench.check(closed.state == "closed", "the milestone was not closed")
    bench.check(closed.close_outcome() == outcome, "the close's outcome was not kept")
    token, before = milestones.new_milestone_id(), bench.model_size([found[2]])
    closing = run(
        "milestones.close",
        milestones.milestone_set_state,
        found[2],
        state="closing",
        expected_version=1,
        token=token,
        basis=before,
    )
    before = bench.model_size([closing])
    kept = run(
        "milestones.close_moved", milestones.close_moved_write, closing, token=token, moved=24, basis=(before, closing)
    )
    bench.check(kept and closing.close_moved == 24, "the close's count so far was not kept")
    run_milestone_edits(run, found[0])


def run_milestone_edits(run: Workload, item: milestones.MilestoneItem) -> None:
    """One milestone read, edited (due date), renamed; a claim dropped and written again; offboarding's read."""
    got = run(
        "milestones.get", milestones.milestone_get, tenant=TENANT, project_key=PROJECT, milestone_id=item.milestone_id
    )
    bench.check(got is not None and got.name == item.name, "the milestone was not read")
    assert got is not None
    edit = Edit(before=bench.model_size([got]))
    due = date(2027, 1, 15)
    got = run(
        "milestones.update (edit)",
        milestones.milestone_update,
        got,
        name=got.name,
        due=due,
        description="Q1",
        expected_version=int(got.version),
        basis=edit,
    )
    bench.check(got.due == due.isoformat(), "the due date was not saved")
    rename = Edit(
        before=bench.model_size([got]),
        listed=partition_bytes(),
        old_claim=claim_bytes(got.pk, got.name, got.milestone_id),
    )
    got = run(
        "milestones.update (rename)",
        milestones.milestone_update,
        got,
        name="v1.0 LTS",
        due=due,
        description="Q1",
        expected_version=int(got.version),
        basis=rename,
    )
    bench.check(got.name == "v1.0 LTS", "the milestone was not renamed")
    bench.check(claimed(got.pk, got.name) == got.milestone_id, "the new name's claim was not written")
    bench.check(claimed(got.pk, NAMES[0]) is None, "the old name's claim was not deleted")
    claim = {"pk": {"S": got.pk}, "m": {"S": "name#" + got.name.casefold()}}  # as a milestone made before claims
    bench.unmetered(
        lambda: connection.client().delete_item(TableName=milestones.MilestoneItem.Meta.table_name, Key=claim)
    )
    report = run(
        "milestones.claims_check",
        milestones.claims_check,
        tenant=TENANT,
        project_key=PROJECT,
        basis=sum(bench.item_size(i) for i in raw_partition()),
    )
    bench.check((report.written, report.conflicts) == (1, []), f"the claims check wrote {report}")
    team = Team(tenant=TENANT, shards=Shards(scores=1, events=1), projects=[PROJECT])
    pages = run("tenants.milestones", offboarding_read, team)
    bench.check(
        sum(len(page) for page in pages) == 2 * len(NAMES),
        f"offboarding read {sum(len(p) for p in pages)} items, not {len(NAMES)} milestones and their claims",
    )


def offboarding_read(team: Team) -> list[list[dict[str, Any]]]:
    """``milestone_pages`` consumed under its pattern (a generator: the decorator's pattern ends before its body)."""
    with capacity.access_pattern("tenants.milestones"):
        return list(milestone_pages(team, milestones.MilestoneItem.Meta.table_name))
