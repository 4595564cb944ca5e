"""An events archive rewritten without chosen items (patterns.time_series.rewrite_archive): verified, new
manifest, swapped; a crash at any point leaves a valid archive, and finishing the plan completes the swap."""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ddbmodels.core.storage import LocalDirStore
from ddbmodels.events import archive
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import archive_names, finish_swap, restore, rewrite_archive
from ddbmodels.tenants.archives import team_event
from tests.ddbmodels.patterns.test_time_series import NOW, RETENTION, Killed, fill, month_table, plain_events, scanned

pytestmark = [pytest.mark.ddblocal, pytest.mark.usefixtures("own_prefix")]


def _events(month: str, tenant: str, count: int) -> list[dict[str, Any]]:
    items = plain_events(month, count)
    for item in items:  # plain_events writes acme's: make them ``tenant``'s, keys and all
        for key in ("s", "d", "tenant"):
            item[key] = {"S": item[key]["S"].replace("acme", tenant, 1)}
    return items


@pytest.fixture
def store(tmp_path: Path) -> LocalDirStore:
    return LocalDirStore(tmp_path / "archive")


@pytest.fixture
def archived(store: LocalDirStore) -> str:
    """2026-07's table with 30 events of ``gone`` and 20 of ``stays``, archived and dropped."""
    table = month_table("2026-07")
    fill(table, _events("2026-07", "gone", 30) + _events("2026-07", "stays", 20))
    reports = archive("month", NOW, RETENTION, store, fence=lambda: None)
    assert [r.action for r in reports] == ["archived"]
    return table


def _lines(store: LocalDirStore, name: str) -> list[bytes]:
    with store.open_read(name) as raw, gzip.GzipFile(fileobj=raw) as lines:
        return list(lines)


def _never(plan: Mapping[str, Any]) -> None:
    return None


def test_a_rewrite_removes_only_the_chosen_items_and_a_restore_brings_back_the_others(
    store: LocalDirStore, archived: str
) -> None:
    old_data = archive_names(archived)[0]
    kept_before = [line for line in _lines(store, old_data) if b"stays#" in line]

    report = rewrite_archive(store, archived, team_event("gone"), token="t1", before_swap=_never, reason="offboarding")

    assert (report.action, report.items_before, report.removed, report.kept) == ("rewritten", 50, 30, 20)
    assert report.removed_by == {"issue.edited": 30}
    check = time_series.verify_archive(store, archived)
    assert check.ok
    assert check.items == 20
    assert check.manifest is not None
    assert check.manifest["data"]["name"] == report.data != old_data
    assert check.manifest["rewrites"][-1]["removed"] == 30
    assert not store.exists(old_data)  # the old data file, with the removed items, is gone
    assert sorted(_lines(store, report.data)) == sorted(kept_before)
    assert not any(b"gone" in line for name in store.list("events/") if "/data" in name for line in _lines(store, name))

    restored = restore(store, archived)
    assert restored.items == 20
    assert all(b"stays#" in item for item in scanned(archived))

    again = rewrite_archive(store, archived, team_event("gone"), token="t2", before_swap=_never, reason="offboarding")
    assert again.action == "clean"  # nothing to remove: read once, nothing written
    assert [n for n in store.list("events/") if "/data" in n] == [report.data]


def test_killed_before_the_swap_the_old_archive_stands_and_the_plan_finishes_it(
    store: LocalDirStore, archived: str
) -> None:
    plans: list[dict[str, Any]] = []

    def checkpoint_then_die(plan: dict[str, Any]) -> None:
        plans.append(plan)  # the checkpoint was saved ...
        raise Killed  # ... and the process died before the manifest was replaced

    with pytest.raises(Killed):
        rewrite_archive(store, archived, team_event("gone"), token="t1", before_swap=checkpoint_then_die, reason="x")
    still = time_series.verify_archive(store, archived)
    assert still.ok
    assert still.items == 50  # the period's archive is the old one, valid

    assert finish_swap(store, plans[0])  # the rerun, from the checkpoint
    after = time_series.verify_archive(store, archived)
    assert after.ok
    assert after.items == 20
    assert not store.exists(archive_names(archived)[0])


def test_killed_between_the_new_manifest_and_the_old_files_deletion_the_plan_deletes_it(
    store: LocalDirStore, archived: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    plans: list[dict[str, Any]] = []
    real_delete = store.delete

    def dies(name: str) -> None:
        raise Killed

    monkeypatch.setattr(store, "delete", dies)
    with pytest.raises(Killed):
        rewrite_archive(store, archived, team_event("gone"), token="t1", before_swap=plans.append, reason="x")
    monkeypatch.setattr(store, "delete", real_delete)
    assert time_series.verify_archive(store, archived).items == 20  # the new archive is committed
    assert store.exists(archive_names(archived)[0])  # the old file is left over ...

    assert finish_swap(store, plans[0])
    assert not store.exists(archive_names(archived)[0])  # ... until the plan is finished
    assert time_series.verify_archive(store, archived).ok


def test_an_archive_that_does_not_verify_is_left_as_it_is(store: LocalDirStore, archived: str) -> None:
    data = store.path(archive_names(archived)[0])
    damaged = bytearray(data.read_bytes())
    damaged[-12] ^= 0xFF
    data.write_bytes(bytes(damaged))

    report = rewrite_archive(store, archived, team_event("gone"), token="t1", before_swap=_never, reason="x")

    assert report.action == "corrupt"
    assert not report.ok
    assert data.read_bytes() == bytes(damaged)
    assert [n for n in store.list("events/") if "/data" in n] == [archive_names(archived)[0]]
