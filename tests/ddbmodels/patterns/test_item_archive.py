"""The items archive: parts and files written, read back in order, and any damage found by verify."""

from __future__ import annotations

import io
from pathlib import Path

from ddbmodels.core.storage import LocalDirStore
from ddbmodels.patterns import item_archive

ITEMS = [
    {"pk": {"S": "acme#WEB"}, "n": {"N": "1"}, "lb": {"SS": ["b", "a"]}, "raw": {"B": b"\x00\xff"}},
    {"pk": {"S": "acme#WEB"}, "n": {"N": "2"}, "m": {"M": {"x": {"L": [{"N": "1"}, {"NULL": True}]}}}},
]


def write_archive(root: Path) -> tuple[LocalDirStore, str]:
    store, folder = LocalDirStore(root), "offboarding/acme/1"
    part = item_archive.write_part(store, folder, "issues", [ITEMS[:1], ITEMS[1:]])
    file = item_archive.copy_file(store, folder, "attachments/acme/WEB/1/x/notes.txt", io.BytesIO(b"hello"))
    item_archive.write_manifest(store, folder, {"parts": [part], "files": [file]})
    return store, folder


def test_an_archive_reads_back_item_for_item_and_verifies(tmp_path: Path) -> None:
    store, folder = write_archive(tmp_path)
    manifest = item_archive.read_manifest(store, folder)
    assert manifest is not None
    assert manifest["parts"][0]["item_count"] == 2
    assert manifest["files"][0]["bytes"] == 5
    back = list(item_archive.read_part(store, manifest["parts"][0]))
    assert back[0]["raw"] == {"B": b"\x00\xff"}
    assert back[1] == ITEMS[1]
    check = item_archive.verify(store, folder)
    assert check.ok, check.problems
    assert (check.items, check.files) == (2, 1)


def test_a_changed_file_or_part_or_a_missing_manifest_fails_verification(tmp_path: Path) -> None:
    store, folder = write_archive(tmp_path)
    (tmp_path / folder / "files/attachments/acme/WEB/1/x/notes.txt").write_bytes(b"HELLO")
    assert "size or SHA-256" in item_archive.verify(store, folder).problems[0]

    store, folder = write_archive(tmp_path / "again")
    data = tmp_path / "again" / item_archive.part_name(folder, "issues")
    data.write_bytes(data.read_bytes()[:-4])
    assert not item_archive.verify(store, folder).ok

    assert item_archive.verify(store, "offboarding/nobody/1").problems == ("no manifest",)
