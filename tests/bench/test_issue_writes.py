"""bench/pattern_rows/issue_writes.py: an issue write's floor from its items, and DynamoDB Local's figure for it.

The unit tests work the rule out on items made here; the DynamoDB Local tests make real issue
writes through ``ddbmodels`` and check that Local reports exactly what the rule says it charges
(so an upgrade of DynamoDB Local that counts otherwise fails here, not in a bench run).
"""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ddbmodels import issues
from ddbmodels.core import capacity
from ddbmodels.issues.model import IssueItem
from tests.ddbmodels.conftest import REPORTER, unique_tenant

Raw = dict[str, Any]
SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "pattern_rows" / "issue_writes.py"


@pytest.fixture(scope="module")
def iw() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_issue_writes", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


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


def entry(sort: str, padding: int = 0) -> dict[str, Any]:
    return {"tn": {"S": "t"}, "s": {"S": sort}, "t": {"S": "x" * (10 + padding)}}


def test_a_plain_create_is_the_issue_and_its_three_index_entries_on_both(iw: ModuleType) -> None:
    cost = iw.write_cost(iw.Stored(), iw.Stored(issue_item()))
    assert (cost.dynamodb, cost.local, cost.transaction, cost.index) == (4, 4, False, 3)


def test_a_create_with_entries_is_a_transaction_that_local_charges_otherwise(iw: ModuleType) -> None:
    words = {f"w#{w}#WEB#1": entry(f"w#{w}#WEB#1") for w in ("login", "fails", "mobile")}
    cost = iw.write_cost(iw.Stored(), iw.Stored(issue_item(), words))
    # DynamoDB: 2 × issue + 3 index entries + 2 × 3 entries; Local: 2 × (issue + entries), the three entries once
    assert (cost.dynamodb, cost.local, cost.transaction) == (11, 10, True)
    assert cost.local_replay == 4  # a replay of it: no index entries


def test_local_adds_each_distinct_entry_charge_once_and_the_record_on_its_own(iw: ModuleType) -> None:
    after = {"w#a#WEB#1": entry("w#a#WEB#1"), "w#b#WEB#1": entry("w#b#WEB#1", 1500), "w#c#WEB#1": entry("w#c#WEB#1")}
    record = {"t": {"S": "t"}, "k": {"S": "issue#WEB#key"}}
    cost = iw.write_cost(iw.Stored(), iw.Stored(issue_item(assignee="ann"), after), record)
    assert cost.dynamodb == 2 * 1 + 4 + 2 * (1 + 2 + 1) + 2 * 1
    assert cost.local == 2 * (1 + 4) + 2 * (1 + 2) + 2 * 1


def test_a_status_change_moves_every_index_entry_and_the_entries_that_changed(iw: ModuleType) -> None:
    before = iw.Stored(issue_item(assignee="ann"), {"l#bug#open#WEB#1": entry("l#bug#open#WEB#1")})
    after = iw.Stored(issue_item(status="closed", assignee="ann"), {"l#bug#closed#WEB#1": entry("l#bug#closed#WEB#1")})
    cost = iw.write_cost(before, after)
    # 4 index entries moved (a delete and a put each), one label entry deleted and one put
    assert (cost.index, cost.dynamodb, cost.local) == (8, 2 + 8 + 2 * 2, 2 * (1 + 8) + 2)


def test_an_unchanged_entry_is_not_written_and_a_tombstone_deletes_what_it_had(iw: ModuleType) -> None:
    same = {"w#a#WEB#1": entry("w#a#WEB#1")}
    renamed = iw.write_cost(iw.Stored(issue_item(), same), iw.Stored(issue_item(title="y"), same))
    assert (renamed.dynamodb, renamed.transaction, renamed.index) == (1 + 3, False, 3)  # rewritten in place
    gone = issue_item()
    for key in ("xs", "xt"):
        del gone[key]
    tombstone = iw.write_cost(iw.Stored(issue_item(), same), iw.Stored(gone))
    assert (tombstone.dynamodb, tombstone.local) == (2 + 3 + 2, 2 * (1 + 3) + 2)


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
    plain, wcu = measured(iw, tenant, lambda: create(tenant, "a b"), None)  # no title word: a PutItem
    assert (plain.transaction, plain.dynamodb, wcu) == (False, 4, 4)

    words, wcu = measured(iw, tenant, lambda: create(tenant, "login fails", labels=["bug"]), None)
    assert (words.dynamodb, words.local, wcu) == (2 + 3 + 2 * 3, 10, 10)

    key = uuid.uuid4().hex
    many = "crash when saving a draft offline twice"  # 6 words (a: a stop word)
    keyed, wcu = measured(
        iw, tenant, lambda: create(tenant, many, assignee="ann", labels=["bug", "ui"], idempotency_key=key), None, key
    )
    assert (keyed.dynamodb, keyed.local, wcu) == (2 + 4 + 2 * 8 + 2, 2 * (1 + 4) + 2 + 2, 14)

    issue = issues.issue_get(tenant=tenant, project_key="WEB", number=3, consistent=True)
    assert issue is not None
    edits: list[Callable[[], Any]] = [
        lambda: issues.issue_update(
            issue, title="crash when saving", description="", priority="high", assignee="bob", labels=["bug"]
        ),
        lambda: issues.issue_change_status(issue, to="resolved"),
        lambda: issues.issue_tombstone(issue, by=REPORTER),
    ]
    for edit in edits:
        cost, wcu = measured(iw, tenant, edit, 3)
        assert cost.transaction
        assert wcu == cost.local
