"""Attachments on DynamoDB Local: the sparse in_flight index holds exactly the in-flight items,
under hundreds of concurrent random transitions; refused transitions write nothing; crashes
between DynamoDB and storage are repaired by ``reconcile``."""

from __future__ import annotations

import io
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from ddbmodels import attachments as ops
from ddbmodels.attachments import ATTACHED, ATTACHING, DETACHED, DETACHING, FAILED
from ddbmodels.attachments.flow import AttachFailed, LocalBlobStore, reconcile
from ddbmodels.attachments.model import AttachmentItem
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.core.keys import utcnow
from tests.ddbmodels.attachments.helpers import (
    DATA,
    FlakyStore,
    Key,
    attach_bytes,
    begin,
    index_attributes_consistent,
    index_keys,
    intermediate_keys,
    key,
    load,
    table_items,
)

pytestmark = pytest.mark.ddblocal


def soon() -> datetime:
    """A cutoff one second in the future: everything in flight counts as stuck."""
    return utcnow() + timedelta(seconds=1)


# --------------------------------------------------------------------------- the index invariant


def test_the_index_holds_an_attachment_exactly_while_it_is_attaching_or_detaching(own_table: None) -> None:
    item = begin()
    assert index_keys() == {key(item)}
    assert index_attributes_consistent(load(item))
    ops.attachment_complete(item)
    assert index_keys() == set()
    assert index_attributes_consistent(load(item))
    ops.attachment_detach_begin(item, by="bob")
    assert index_keys() == {key(item)}
    assert load(item).in_flight_key.startswith("Detaching#")
    ops.attachment_detach_complete(item)
    assert index_keys() == set()
    assert (load(item).state, load(item).detached_by) == (DETACHED, "bob")


def test_after_hundreds_of_random_transitions_on_four_threads_the_index_is_exactly_the_intermediate_items(
    own_table: None,
) -> None:
    created: list[AttachmentItem] = []  # copies as first written: later they are stale on purpose
    lock = threading.Lock()
    won: Counter[tuple[Key, str]] = Counter()
    refused: Counter[str] = Counter()
    moves = {
        "complete": lambda item: ops.attachment_complete(item),
        "complete_same_visit": lambda item: ops.attachment_complete(item, same_visit=True),
        "claim": lambda item: ops.attachment_claim(item, reason="test"),
        "fail": lambda item: ops.attachment_fail(item, reason="test"),
        "detach_begin": lambda item: ops.attachment_detach_begin(item, by="bob"),
        "detach_complete": lambda item: ops.attachment_detach_complete(item),
    }

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(100):
            with lock:
                pool = list(created)
            if not pool or rng.random() < 0.2:
                item = begin(number=rng.randint(1, 3))
                with lock:
                    created.append(item)
                won[(key(item), "begin")] += 1
                continue
            target = rng.choice(pool)
            # Half the time a fresh copy, half the time whatever copy we hold (maybe stale).
            copy = load(target) if rng.random() < 0.5 else AttachmentItem.from_raw_data(target.serialize())
            move = rng.choice(list(moves))
            try:
                moves[move](copy)
            except ChangedSinceRead:
                refused[move] += 1
            else:
                won[(key(target), move)] += 1

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))

    items = table_items()
    assert len(items) == len(created) >= 50
    assert intermediate_keys() == index_keys()
    assert all(index_attributes_consistent(item) for item in items)
    for item in items:  # each item's winning transitions form one path of the state machine
        k = key(item)
        done, failed = won[(k, "complete")] + won[(k, "complete_same_visit")], won[(k, "fail")]
        assert done + failed <= 1
        assert won[(k, "detach_begin")] <= done
        assert won[(k, "detach_complete")] <= won[(k, "detach_begin")]
        expected = (
            DETACHED
            if won[(k, "detach_complete")]
            else DETACHING
            if won[(k, "detach_begin")]
            else ATTACHED
            if done
            else FAILED
            if failed
            else ATTACHING
        )
        assert item.state == expected, (k, item.state, expected)
    assert sum(won.values()) + sum(refused.values()) == 400
    assert {state for item in items for state in [item.state]} == {ATTACHING, ATTACHED, DETACHING, DETACHED, FAILED}
    assert refused["detach_complete"] > 0
    assert refused["fail"] > 0


# ------------------------------------------------------------------- crashes repaired by reconcile


def test_a_crash_between_the_storage_write_and_the_state_update_is_completed_by_reconcile(
    own_table: None, store: LocalBlobStore
) -> None:
    item = begin(data=DATA)
    store.save(item.storage_name, io.BytesIO(DATA))  # …and the process dies here

    report = reconcile(store, before=soon())

    assert (report.examined, report.completed, report.rolled_back) == (1, 1, 0)
    assert load(item).state == ATTACHED
    assert index_keys() == set()
    with store.open_read(item.storage_name) as stored:
        assert stored.read() == DATA


def test_a_crash_before_the_file_was_written_is_rolled_back_by_reconcile(
    own_table: None, store: LocalBlobStore
) -> None:
    item = begin(data=DATA)  # item created, file never written

    report = reconcile(store, before=soon())

    assert (report.examined, report.completed, report.rolled_back, report.partial_files_removed) == (1, 0, 1, 0)
    stored = load(item)
    assert (stored.state, stored.reason) == (FAILED, "repair: file missing")
    assert index_keys() == set()
    assert not store.exists(item.storage_name)


def test_a_partially_written_file_is_removed_and_the_attach_rolled_back(own_table: None, store: LocalBlobStore) -> None:
    item = begin(data=DATA)
    store.save(item.storage_name, io.BytesIO(DATA[: len(DATA) // 2]))

    report = reconcile(store, before=soon())

    assert (report.rolled_back, report.partial_files_removed) == (1, 1)
    assert load(item).state == FAILED
    assert not store.exists(item.storage_name)


def test_a_detach_interrupted_before_or_after_deleting_the_file_is_finished_by_reconcile(
    own_table: None, store: LocalBlobStore
) -> None:
    before_delete, after_delete = attach_bytes(store, name="a.pdf"), attach_bytes(store, name="b.pdf")
    for item in (before_delete, after_delete):
        ops.attachment_detach_begin(item, by="bob")
    store.delete(after_delete.storage_name)  # the second one died after deleting its file

    report = reconcile(store, before=soon())

    assert (report.examined, report.detached, report.files_deleted) == (2, 2, 1)
    assert {load(i).state for i in (before_delete, after_delete)} == {DETACHED}
    assert not store.exists(before_delete.storage_name)
    assert index_keys() == set()


def test_reconcile_leaves_recent_attachments_alone_and_a_second_run_finds_nothing(
    own_table: None, store: LocalBlobStore
) -> None:
    old = begin()
    cutoff = soon()
    young = begin(number=2)
    young_since = load(young).in_flight_since
    assert young_since < cutoff  # both are before the cutoff of the first run…

    first = reconcile(store, before=young_since)  # …but this run only looks before the young one
    second = reconcile(store, before=young_since)

    assert (first.examined, first.rolled_back, second.examined) == (1, 1, 0)
    assert load(old).state == FAILED
    assert load(young).state == ATTACHING
    assert index_keys() == {key(young)}


def test_an_uploader_whose_stuck_attach_was_claimed_by_the_repair_job_is_refused_and_leaves_no_file(
    own_table: None, tmp_path: Path
) -> None:
    claimed: list[AttachmentItem] = []

    def repair_job_runs_meanwhile(name: str) -> None:
        (stuck,) = ops.attachments_in_flight(before=soon())
        claimed.append(ops.attachment_claim(stuck, reason="repair: file missing"))

    slow = FlakyStore(tmp_path / "media", before_save=repair_job_runs_meanwhile)
    with pytest.raises(AttachFailed):
        attach_bytes(slow)

    (item,) = claimed
    assert not slow.exists(item.storage_name), "the uploader removes the file it wrote late"
    assert load(item).state == ATTACHING  # still the repair job's to finish…
    report = reconcile(slow, before=soon())
    assert (report.rolled_back, load(item).state, index_keys()) == (1, FAILED, set())
