"""An archive of chosen items (not a whole table): parts of gzipped DynamoDB JSON, files, one manifest.

The line format, SHA-256 and order-independent items digest are the events archive's
(``time_series.archive_format``); what differs is where the items come from — the caller's
Queries, not a Scan of one table — so several parts (one per table) and copied files share one
manifest. Nothing here calls DynamoDB.

    <folder>/items/<part>.jsonl.gz    one part per table, written whole through ``open_write``
    <folder>/files/<name>             a copied file
    <folder>/manifest.json            written last: the archive exists once it does
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from ddbmodels.core.storage import ArchiveStore
from ddbmodels.patterns.time_series import (  # the events archive's line format and digest
    HashingReader,
    HashingWriter,
    ItemsDigest,
    item_line,
    line_item,
)

ITEMS_FORMAT = "tracker-items-archive"
ITEMS_FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
CHUNK = 256 * 1024


def part_name(folder: str, part: str) -> str:
    return f"{folder}/items/{part}.jsonl.gz"


def manifest_name(folder: str) -> str:
    return f"{folder}/{MANIFEST_FILE}"


def write_part(
    store: ArchiveStore,
    folder: str,
    part: str,
    pages: Iterable[Sequence[Mapping[str, Any]]],
    *,
    on_items: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Write the items of ``pages`` (wire format) as part ``part``; its manifest entry. No DynamoDB call."""
    name = part_name(folder, part)
    digest = ItemsDigest()
    with (
        store.open_write(name) as raw,
        gzip.GzipFile(fileobj=HashingWriter(raw, digest), mode="wb", compresslevel=6, mtime=0) as out,
    ):
        for page in pages:
            lines = [item_line(item) for item in page]
            out.write(b"".join(lines))
            for line in lines:
                digest.add_line(line)
            if on_items is not None:
                on_items(digest.items)
    return {
        "part": part,
        "name": name,
        "item_count": digest.items,
        "items_digest": digest.items_digest,
        "sha256": digest.sha256.hexdigest(),
        "bytes": digest.bytes,
        "uncompressed_bytes": digest.raw_bytes,
    }


def copy_file(store: ArchiveStore, folder: str, name: str, source: IO[bytes]) -> dict[str, Any]:
    """Copy one file into ``<folder>/files/<name>`` while hashing it; its manifest entry."""
    target = f"{folder}/files/{name}"
    sha = hashlib.sha256()
    size = 0
    with store.open_write(target) as out:
        while chunk := source.read(CHUNK):
            sha.update(chunk)
            size += len(chunk)
            out.write(chunk)
    return {"source": name, "name": target, "sha256": sha.hexdigest(), "bytes": size}


def write_manifest(store: ArchiveStore, folder: str, manifest: Mapping[str, Any]) -> None:
    """The manifest, last: ``format``, ``parts`` and ``files`` entries, and whatever the caller adds."""
    document = {"format": ITEMS_FORMAT, "format_version": ITEMS_FORMAT_VERSION, **manifest}
    with store.open_write(manifest_name(folder)) as file:
        file.write(json.dumps(document, indent=2, sort_keys=True, default=str).encode() + b"\n")


def read_manifest(store: ArchiveStore, folder: str) -> dict[str, Any] | None:
    """The archive's manifest, or None when it was never completed."""
    try:
        with store.open_read(manifest_name(folder)) as file:
            manifest = json.loads(file.read())
    except FileNotFoundError:
        return None
    return manifest if isinstance(manifest, dict) else None


def read_part(store: ArchiveStore, entry: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The items of one part, in the order they were written (wire format, binaries as bytes)."""
    with store.open_read(entry["name"]) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as lines:
        for line in lines:
            yield line_item(line)


@dataclass(frozen=True)
class ArchiveCheck:
    ok: bool
    items: int
    files: int
    bytes: int
    problems: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "items": self.items, "files": self.files, "bytes": self.bytes, "problems": self.problems}


def verify(store: ArchiveStore, folder: str) -> ArchiveCheck:
    """Read everything back (no DynamoDB call): per part count, SHA-256 and items digest; per file size and SHA-256."""
    manifest = read_manifest(store, folder)
    if manifest is None:
        return ArchiveCheck(False, 0, 0, 0, ("no manifest",))
    problems: list[str] = []
    if manifest.get("format") != ITEMS_FORMAT or manifest.get("format_version") != ITEMS_FORMAT_VERSION:
        problems.append(f"unknown format {manifest.get('format')!r} v{manifest.get('format_version')!r}")
    items = files = total_bytes = 0
    for entry in manifest.get("parts", []):
        digest = ItemsDigest()
        try:
            with store.open_read(entry["name"]) as raw, gzip.GzipFile(fileobj=HashingReader(raw, digest)) as lines:
                for line in lines:
                    digest.add_line(item_line(line_item(line)))  # re-canonicalized: proves each line parses
        except FileNotFoundError:
            problems.append(f"{entry['part']}: data file missing")
            continue
        except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError) as error:
            problems.append(f"{entry['part']}: unreadable after {digest.items} items: {type(error).__name__}")
            continue
        items += digest.items
        total_bytes += digest.bytes
        if digest.items != entry["item_count"]:
            problems.append(f"{entry['part']}: {digest.items} items, manifest says {entry['item_count']}")
        if digest.sha256.hexdigest() != entry["sha256"]:
            problems.append(f"{entry['part']}: SHA-256 differs from the manifest")
        if digest.items_digest != entry["items_digest"]:
            problems.append(f"{entry['part']}: items digest differs from the manifest")
    for entry in manifest.get("files", []):
        sha, size = hashlib.sha256(), 0
        try:
            with store.open_read(entry["name"]) as file:
                while chunk := file.read(CHUNK):
                    sha.update(chunk)
                    size += len(chunk)
        except FileNotFoundError:
            problems.append(f"file {entry['source']} missing from the archive")
            continue
        files += 1
        total_bytes += size
        if size != entry["bytes"] or sha.hexdigest() != entry["sha256"]:
            problems.append(f"file {entry['source']}: size or SHA-256 differs from the manifest")
    return ArchiveCheck(not problems, items, files, total_bytes, tuple(problems))
