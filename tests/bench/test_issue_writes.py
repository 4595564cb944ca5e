"""bench/pattern_rows/issue_writes.py: an issue write's floor from its items, and DynamoDB Local's figure for it.

The unit tests work the rule out on items made here; the DynamoDB Local tests make real issue
writes through ``ddbmodels`` and check that Local reports exactly what the rule says it charges
(so an upgrade of DynamoDB Local that counts otherwise fails here, not in a bench run).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.issues.model import IssueItem
from tests.bench.scripts import BENCH, load_script
from tests.ddbmodels.conftest import REPORTER, unique_tenant

Raw = dict[str, Any]
SCRIPT = BENCH / "pattern_rows" / "issue_writes.py"


@pytest.fixture(scope="module")
def iw() -> ModuleType:
    return load_script(SCRIPT, "bench_issue_writes")


def issue_item(
    number: int = 1, *, status: str = "open", assignee: str | None = None, title: str = "x"
) -> dict[str, Any]:
    item = {
        "pk": {"S": "t#WEB"},
        "n": {"N": str(number)},
        "k": {"S": "issue"},
        "v": {"N": "1"},
        "t": {"S": title},
        "st": {"S": status},
        "ua": {"S": "2026-01-01T00:00:00.000000+0000"},
        "xs": {"S": f"t#WEB#{status}"},
        "xt": {"S": f"t#{status}"},
    }
    if assignee:
        item.update({"as": {"S": assignee}, "xa": {"S": f"t#{assignee}#{status}"}})
    return item


def entry(label: str, status: str = "open", padding: int = 0) -> tuple[tuple[str, str], dict[str, Any]]:
    key, sort = f"t#{label}", f"{status}#WEB#{1:012d}"
    return (key, sort), {"lk": {"S": key}, "s": {"S": sort}, "t": {"S": "x" * (10 + padding)}, "v": {"N": "1"}}


def entries(*made: tuple[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return dict(made)


def test_a_plain_create_is_the_issue_and_its_three_index_entries_on_both(iw: ModuleType) -> None:
    cost = iw.write_cost(iw.Stored(), iw.Stored(issue_item()))
    assert (cost.dynamodb, cost.local, cost.transaction, cost.index) == (4, 4, False, 3)


def test_a_create_with_labels_is_a_transaction_that_local_charges_otherwise(iw: ModuleType) -> None:
    after = entries(entry("bug"), entry("ui"), entry("docs"))
    cost = iw.write_cost(iw.Stored(registry=frozenset({"bug", "ui", "docs"})), iw.Stored(issue_item(), after))
    # DynamoDB: 2 × issue + 3 index entries + 2 × 3 entries; Local: 2 × (issue + index entries), the entries once
    assert (cost.dynamodb, cost.local, cost.transaction) == (11, 10, True)
    assert cost.local_replay == 4  # a replay of it: no index entries


def test_a_label_new_to_the_team_adds_its_registry_item_and_a_record_its_index_entry(iw: ModuleType) -> None:
    after = entries(entry("a"), entry("b", padding=1500))
    record = {"k": {"S": "t#issue#WEB#key"}, "ts": {"S": "t#3"}, "r": {"S": "1"}}
    before = iw.Stored(registry=frozenset({"a"}))
    cost = iw.write_cost(before, iw.Stored(issue_item(assignee="ann"), after, frozenset({"a", "b"})), record)
    # the issue, 4 index entries, the entries (1 + 2 KB), the record, its by_tenant entry, b's registry item
    assert cost.dynamodb == 2 * 1 + 4 + 2 * (1 + 2) + 2 * 1 + 1 + 1
    assert cost.local == 2 * (1 + 4) + 2 * (1 + 2) + 2 * (1 + 1) + 1


def test_a_status_change_moves_every_index_entry_and_each_label_entry_outside_a_transaction(iw: ModuleType) -> None:
    before = iw.Stored(issue_item(assignee="ann"), entries(entry("bug"), entry("ui")))
    after = iw.Stored(
        issue_item(status="closed", assignee="ann"), entries(entry("bug", "closed"), entry("ui", "closed"))
    )
    cost = iw.write_cost(before, after)
    # the issue, 4 index entries moved (a delete and a put each), 2 label entries deleted and 2 put: 13 on both
    assert (cost.index, cost.dynamodb, cost.local, cost.transaction) == (8, 1 + 8 + 4, 1 + 8 + 4, False)


def test_an_unchanged_entry_is_not_written_and_a_tombstone_deletes_what_it_had(iw: ModuleType) -> None:
    same = entries(entry("a"))
    renamed = iw.write_cost(iw.Stored(issue_item(), same), iw.Stored(issue_item(title="y"), same))
    assert (renamed.dynamodb, renamed.transaction, renamed.index) == (1 + 3, False, 3)  # rewritten in place
    gone = issue_item()
    for key in ("xs", "xt"):
        del gone[key]
    tombstone = iw.write_cost(iw.Stored(issue_item(), same), iw.Stored(gone))
    assert (tombstone.dynamodb, tombstone.local) == (1 + 3 + 1, 1 + 3 + 1)


# ---------------------------------------------------------------------------- on DynamoDB Local


def create(tenant: str, title: str, **fields: Any) -> IssueItem:
    return issues.issue_create(tenant=tenant, project_key="WEB", title=title, reporter=REPORTER, **fields).item


def measured(iw: ModuleType, tenant: str, write: Callable[[], Any], number: int | None, key: str | None = None) -> Any:
    """``write()`` in a meter: its WriteCost (from the items stored before and after) and the WCU Local reported."""
    basis = iw.IssueWrite(tenant, "WEB", number, idempotency_key=key)
    with capacity.measure() as meter:
        result = write()
    return basis.cost(result), meter.wcu


@pytest.mark.ddblocal
def test_local_reports_what_the_rule_says_for_every_kind_of_issue_write(iw: ModuleType) -> None:
    tenant = unique_tenant()
    issues.project_create(tenant=tenant, key="WEB", name="Web", created_by=REPORTER)
    plain, wcu = measured(iw, tenant, lambda: create(tenant, "login fails"), None)  # no label: a PutItem
    assert (plain.transaction, plain.dynamodb, wcu) == (False, 4, 4)

    labelled, wcu = measured(iw, tenant, lambda: create(tenant, "login fails", labels=["bug"]), None)
    # bug's registry item (1) + 2 × (issue + entry) + 3 index entries; Local doubles the index entries
    assert (labelled.dynamodb, labelled.local, wcu) == (1 + 2 * 2 + 3, 1 + 2 * (1 + 3) + 2, 11)

    key = uuid.uuid4().hex
    many = "crash when saving a draft offline twice"  # 6 title words: none of them is DynamoDB's now
    keyed, wcu = measured(
        iw, tenant, lambda: create(tenant, many, assignee="ann", labels=["bug", "ui"], idempotency_key=key), None, key
    )
    # ui's registry item + 2 × (issue + 2 entries + record) + 4 index entries + the record's by_tenant entry
    assert keyed.dynamodb == 1 + 2 * (1 + 2 + 1) + 4 + 1
    assert (keyed.local, wcu) == (1 + 2 * (1 + 4) + 2 + 2 * (1 + 1), 17)

    issue = issues.issue_get(tenant=tenant, project_key="WEB", number=3, consistent=True)
    assert issue is not None
    moved, wcu = measured(iw, tenant, lambda: issues.issue_change_status(issue, to="resolved"), 3)
    # the lead's target: a status change of an issue with 6 title words and 2 labels ≤ 14 WCU (it was 20)
    assert (moved.transaction, moved.dynamodb, moved.local, wcu) == (False, 13, 13, 13)
    edits: list[Callable[[], Any]] = [
        lambda: issues.issue_update(
            issue, title="crash when saving", description="", priority="high", assignee="bob", labels=["bug"]
        ),
        lambda: issues.issue_tombstone(issue, by=REPORTER),
    ]
    for edit in edits:
        cost, wcu = measured(iw, tenant, edit, 3)
        assert not cost.transaction
        assert wcu == cost.local == cost.dynamodb
