"""Archive storage over Django's storage keeps ArchiveStore's promise: an object written appears whole or not
at all, the older version staying (an archive's manifest is swapped this way when offboarding rewrites it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage

from tracker import storage as archive_storage
from tracker.storage import DjangoArchiveStore


def _write(store: DjangoArchiveStore, name: str, data: bytes) -> None:
    with store.open_write(name) as file:
        file.write(data)


def _read(store: DjangoArchiveStore, name: str) -> bytes:
    with store.open_read(name) as file:
        return file.read()


@pytest.fixture
def store(tmp_path: Path) -> DjangoArchiveStore:
    return DjangoArchiveStore(FileSystemStorage(location=tmp_path, allow_overwrite=True))


def test_a_write_that_fails_half_way_leaves_the_older_version_whole(
    store: DjangoArchiveStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(store, "events/t/manifest.json", b"version 1")

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(FileSystemStorage, "_save", disk_full)  # the save the old code did after deleting
    monkeypatch.setattr(archive_storage.shutil, "copyfileobj", disk_full)
    with pytest.raises(OSError, match="No space left"):
        _write(store, "events/t/manifest.json", b"version 2")

    assert _read(store, "events/t/manifest.json") == b"version 1"  # was gone: deleted before the failed save
    assert store.list("events") == ["events/t/manifest.json"]  # no temporary file left or listed


def test_a_write_replaces_the_object_and_lists_no_temporary_file(store: DjangoArchiveStore, tmp_path: Path) -> None:
    _write(store, "events/t/manifest.json", b"version 1")
    with store.open_write("events/t/manifest.json") as file:
        file.write(b"version 2")
        assert _read(store, "events/t/manifest.json") == b"version 1"  # readers see the old one meanwhile
    assert _read(store, "events/t/manifest.json") == b"version 2"
    assert (tmp_path / "events" / "t" / "manifest.json").stat().st_mode & 0o777 == 0o644
    (tmp_path / "events" / "t" / ".tmp-crashed").write_bytes(b"half")  # a write killed with the process
    assert store.list("events") == ["events/t/manifest.json"]


def test_a_replace_is_made_durable_in_its_folder_before_the_write_returns(
    store: DjangoArchiveStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After ``os.replace`` the folder itself is fsynced: otherwise a power loss could bring the old manifest back
    while the data file it names is already deleted (a rewrite deletes the old data file right after the swap)."""
    events: list[tuple[str, object]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.path.realpath(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(source: str, target: str) -> None:
        real_replace(source, target)
        events.append(("replace", target))

    monkeypatch.setattr(archive_storage.os, "fsync", fsync)
    monkeypatch.setattr(archive_storage.os, "replace", replace)

    _write(store, "events/t/manifest.json", b"version 2")

    folder = str((tmp_path / "events" / "t").resolve())
    target = str(tmp_path / "events" / "t" / "manifest.json")
    assert ("replace", target) in events
    after_replace = events[events.index(("replace", target)) + 1 :]
    assert ("fsync", folder) in after_replace  # the folder's entry for the new file is on disk
