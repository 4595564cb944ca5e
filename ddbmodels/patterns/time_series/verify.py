"""``verify_archive``: an archive read back against its manifest (no DynamoDB call)."""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass
from typing import Any

from ddbmodels.core import capacity
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.patterns.time_series.archive_format import (
    ARCHIVE_FORMAT,
    FORMAT_VERSION,
    ArchiveInvalid,
    HashingReader,
    ItemsDigest,
    Progress,
    archive_names,
    data_name,
    item_line,
    line_item,
)


@dataclass(frozen=True)
class Verification:
    ok: bool
    table: str
    items: int = 0
    bytes: int = 0
    problems: tuple[str, ...] = ()
    manifest: dict[str, Any] | None = None

    @property
    def detail(self) -> str:
        return "; ".join(self.problems) if self.problems else f"{self.items} items, {self.bytes} bytes verified"


def read_manifest(store: ArchiveStore, table: str) -> dict[str, Any] | None:
    """The manifest of a table's archive, or None when there is none."""
    _, manifest_name = archive_names(table)
    try:
        with store.open_read(manifest_name) as file:
            manifest = json.loads(file.read())
    except FileNotFoundError:
        return None
    if not isinstance(manifest, dict):
        raise ArchiveInvalid("manifest is not a JSON object", table=table)
    return manifest


@capacity.access_pattern("time_series.verify")
def verify_archive(store: ArchiveStore, table: str, *, on_progress: Progress | None = None) -> Verification:
    """Read the archive back (no DynamoDB call): item count, SHA-256 and items digest against the manifest."""
    try:
        manifest = read_manifest(store, table)
    except (ArchiveInvalid, ValueError) as error:
        return Verification(False, table, problems=(f"manifest unreadable: {error}",))
    if manifest is None:
        return Verification(False, table, problems=("no manifest",))
    problems = []
    if manifest.get("format") != ARCHIVE_FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        problems.append(f"unknown format {manifest.get('format')!r} v{manifest.get('format_version')!r}")
    if manifest.get("table") != table:
        problems.append(f"manifest is for table {manifest.get('table')!r}")
    data = manifest.get("data") or {}
    expected = int(manifest.get("item_count", -1))
    digest = ItemsDigest()
    try:
        data_file = data_name(table, manifest)
    except ArchiveInvalid as error:
        return Verification(False, table, problems=(*problems, str(error)), manifest=manifest)
    try:
        with store.open_read(data_file) as raw:
            hashing = HashingReader(raw, digest)
            with gzip.GzipFile(fileobj=hashing, mode="rb") as lines:
                for line in lines:
                    digest.add_line(item_line(line_item(line)))  # re-canonicalized: proves each line parses
                    if on_progress is not None and digest.items % 1000 == 0:
                        on_progress(digest.items, expected, "verify")
    except FileNotFoundError:
        problems.append("data file missing")
    except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError, AttributeError) as error:  # damage
        problems.append(f"data file unreadable after {digest.items} items: {type(error).__name__}: {error}")
    else:
        if digest.items != expected:
            problems.append(f"{digest.items} items in the data file, manifest says {expected}")
        if digest.sha256.hexdigest() != data.get("sha256"):
            problems.append("SHA-256 of the data file differs from the manifest")
        if digest.items_digest != manifest.get("items_digest"):
            problems.append("items digest differs from the manifest")
    if on_progress is not None:
        on_progress(digest.items, expected, "verify")
    return Verification(not problems, table, digest.items, digest.bytes, tuple(problems), manifest)
