"""Offboarding's ``archives`` stage also reaches a data file left without its manifest (review, should 6).

Such a file is what an export cut short leaves, or the archive job's count check when it was killed between
deleting the manifest and the data file: ``archived_tables`` (manifests) never lists it, yet it holds the
team's events. The stage deletes it (no restore reads it; its table is still in DynamoDB) and says so.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ddbmodels.core.storage import LocalDirStore
from ddbmodels.events import archive
from ddbmodels.patterns import time_series
from ddbmodels.patterns.time_series import archive_names
from ddbmodels.tenants.archives import archived_tables, orphan_data_files, scrub_archives
from tests.ddbmodels.patterns.test_archive_rewrite import _events
from tests.ddbmodels.patterns.test_time_series import NOW, RETENTION, fill, month_table

pytestmark = [pytest.mark.ddblocal, pytest.mark.usefixtures("own_prefix")]


@pytest.fixture
def store(tmp_path: Path) -> LocalDirStore:
    return LocalDirStore(tmp_path / "archive")


def _scrub(tenant: str, store: LocalDirStore, state: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    saved: list[str] = []
    done = scrub_archives(
        tenant, store, state, save_checkpoint=lambda value: saved.append(value or ""), progress=lambda **_: None
    )
    return done, saved


def test_a_data_file_without_its_manifest_is_deleted_by_the_archives_stage(store: LocalDirStore) -> None:
    archived = month_table("2026-06")  # a proper archive, dropped: holds only the other team's events
    fill(archived, _events("2026-06", "stays", 10))
    assert [r.action for r in archive("month", NOW, RETENTION, store, fence=lambda: None)] == ["archived"]
    cut_short = month_table("2026-07")  # an export that stopped before its manifest: the team's events in it
    fill(cut_short, _events("2026-07", "gone", 30) + _events("2026-07", "stays", 5))
    time_series.export_table(cut_short, store)
    store.delete(archive_names(cut_short)[1])
    orphan = archive_names(cut_short)[0]
    assert orphan_data_files(store) == {cut_short: [orphan]}
    assert archived_tables(store) == [archived]  # what the stage read before: the orphan was never seen

    state: dict[str, Any] = {"folder": ""}
    done, saved = _scrub("gone", store, state)

    assert not store.exists(orphan)
    assert store.list(f"events/{cut_short}/") == []
    assert done[cut_short]["action"] == "orphan_deleted"
    assert done[cut_short]["ok"] is True
    assert done[cut_short]["files_deleted"] == 1
    assert done[archived]["action"] == "clean"  # the real archive is read as before, nothing of it changed
    assert time_series.verify_archive(store, archived).items == 10
    assert json.loads(saved[-1])["archives"][cut_short]["action"] == "orphan_deleted"  # in the checkpoint


def test_a_team_s_events_left_in_no_file_of_archive_storage(store: LocalDirStore) -> None:
    """The whole store read afterwards holds none of the team's events (the orphan's included)."""
    cut_short = month_table("2026-05")
    fill(cut_short, _events("2026-05", "gone", 12))
    time_series.export_table(cut_short, store)
    store.delete(archive_names(cut_short)[1])

    _scrub("gone", store, {"folder": ""})

    for name in store.list("events/"):
        with store.open_read(name) as raw:
            body = raw.read()
        assert b"gone#" not in (gzip.decompress(body) if name.endswith(".gz") else body), name
