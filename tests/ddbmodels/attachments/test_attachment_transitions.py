"""Attachment transitions and flows on DynamoDB Local: a refused transition names the real state
and writes nothing; each costs what the sparse-index pattern says; failed stores roll back."""

from __future__ import annotations

from pathlib import Path

import pytest

from ddbmodels import attachments as ops
from ddbmodels.attachments import ATTACHED, ATTACHING, DETACHED, DETACHING, FAILED
from ddbmodels.attachments.flow import AttachFailed, LocalBlobStore, detach
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead
from tests.ddbmodels.attachments.helpers import (
    FlakyStore,
    attach_bytes,
    begin,
    index_keys,
    load,
    table_items,
)

pytestmark = pytest.mark.ddblocal


@pytest.mark.parametrize(
    ("setup", "move", "current"),
    [
        pytest.param(["detach_begin"], "detach_begin", DETACHING, id="detach-a-detaching-one"),
        pytest.param(["detach_begin", "detach_complete"], "detach_begin", DETACHED, id="detach-a-detached-one"),
        pytest.param([], "detach_begin", ATTACHING, id="detach-one-still-attaching"),
        pytest.param(["detach_begin"], "complete", DETACHING, id="complete-a-detaching-one"),
    ],
)
def test_a_transition_the_state_does_not_allow_names_the_state_and_writes_nothing(
    own_table: None, setup: list[str], move: str, current: str
) -> None:
    item = begin()
    if setup:
        ops.attachment_complete(item)
    for step in setup:
        getattr(ops, f"attachment_{step}")(item, **({"by": "bob"} if step == "detach_begin" else {}))
    before = load(item).serialize()
    kwargs = {"by": "eve"} if move == "detach_begin" else {}
    fresh = load(item)
    with capacity.measure() as meter, pytest.raises(ChangedSinceRead) as refused:
        getattr(ops, f"attachment_{move}")(fresh, **kwargs)
    assert refused.value.current == current
    assert current.lower() in str(refused.value)
    assert load(item).serialize() == before
    assert (meter.wcu, meter.conditional_failures) == (0, 1)
    assert meter.rcu == 1.0  # the consistent GetItem that names the current state


def test_each_transition_costs_two_wcu_and_a_claim_three(own_table: None) -> None:
    costs = {}
    with capacity.measure() as meter:
        item = begin()
    costs["begin"] = meter.wcu
    for name, move in [
        ("complete", lambda: ops.attachment_complete(item)),
        ("detach_begin", lambda: ops.attachment_detach_begin(item, by="bob")),
        ("detach_complete", lambda: ops.attachment_detach_complete(item)),
    ]:
        with capacity.measure() as meter:
            move()
        costs[name] = meter.wcu
    other = begin()
    with capacity.measure() as meter:
        ops.attachment_claim(other, reason="stuck")
    costs["claim"] = meter.wcu
    with capacity.measure() as meter:
        ops.attachment_fail(other, reason="stuck")
    costs["fail"] = meter.wcu
    assert costs == {"begin": 2, "complete": 2, "detach_begin": 2, "detach_complete": 2, "claim": 3, "fail": 2}


# ---------------------------------------------------------------------- attach and detach flows


def test_an_attach_whose_file_cannot_be_stored_or_verified_ends_failed_with_no_file(
    own_table: None, tmp_path: Path
) -> None:
    for flaky in (FlakyStore(tmp_path / "a", fail=True), FlakyStore(tmp_path / "b", corrupt=True)):
        with pytest.raises(AttachFailed):
            attach_bytes(flaky)
    items = table_items()
    assert [i.state for i in items] == [FAILED, FAILED]
    assert {i.reason for i in items} == {"storage error: OSError", "verification: file partial"}
    assert [p.name for d in ("a", "b") for p in (tmp_path / d).rglob("*") if p.is_file()] == []
    assert index_keys() == set()


def test_attach_then_detach_store_and_remove_the_file_for_eight_wcu(own_table: None, store: LocalBlobStore) -> None:
    with capacity.measure() as meter:
        item = attach_bytes(store)
        assert item.state == ATTACHED
        assert store.exists(item.storage_name)
        detached = detach(store, item, by="bob")
    assert detached.state == DETACHED
    assert not store.exists(item.storage_name)
    assert meter.wcu == 8  # four transitions, each 1 WCU for the item + 1 for the index entry
    assert index_keys() == set()
    with pytest.raises(ChangedSinceRead) as again:
        detach(store, load(item), by="bob")
    assert again.value.current == DETACHED
