"""``rewrite_archive``: a table's archive written again without the items a predicate picks — verified, swapped.

Offboarding uses it: an archived (and maybe dropped) period still holds the team's events, so its
archive is rewritten without them and a restore of it brings none of them back. No DynamoDB call.

1. read    the data file the manifest names, front to back once, hashed: its count, SHA-256 and
           items digest must be the manifest's (otherwise nothing is written: ``corrupt``). The
           items the predicate picks are left out; the others go, as canonical lines, into a new
           data file ``events/<table>/data-<token>.jsonl.gz``. When nothing is picked the new file
           is abandoned before it is stored (``clean``: one read, no write).
2. check   the new file is read back: count, SHA-256 and items digest must be what was written,
           and kept + removed must be the old archive — the counts add up and, the items digest
           being a sum mod 2²⁵⁶, so do the digests: no item was lost or altered on the way.
3. swap    ``before_swap(plan)`` (the caller's checkpoint, which is also its fence), then the new
           manifest replaces the old one (one ``open_write``, the store's atomic replace: the
           commit point), then the old data file is deleted.

The period has a valid archive at every moment: before the manifest is replaced the old one
stands (the new data file is an orphan that the next rewrite deletes), after it the new one.
Killed inside step 3, the caller hands the plan from its checkpoint to ``finish_swap``, which
writes the manifest again if needed (after checking the new file once more) and deletes the old
file. Cost: the archive is read once (and the new one once more), the new one written once;
a clean archive is read once and nothing is written.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import zlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ddbmodels.core.keys import utcnow
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.patterns.time_series.archive_format import (
    ARCHIVE_ROOT,
    DIGEST_MODULUS,
    ArchiveInvalid,
    HashingReader,
    HashingWriter,
    ItemsDigest,
    archive_names,
    data_name,
    item_line,
    line_item,
)
from ddbmodels.patterns.time_series.verify import read_manifest

Plan = dict[str, Any]


@dataclass
class RewriteReport:
    """What ``rewrite_archive`` did with one archive (no item content: counts and digests only)."""

    table: str
    action: str  # rewritten | clean | corrupt | missing
    items_before: int = 0
    removed: int = 0
    kept: int = 0
    removed_by: dict[str, int] = field(default_factory=dict)
    items_digest_before: str = ""
    items_digest_after: str = ""
    data: str = ""
    bytes_read: int = 0  # archive storage read: the old data file once, the new one once more
    bytes_written: int = 0  # the new data file and manifest
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.action in ("rewritten", "clean", "missing")

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


class _NothingToRemove(Exception):
    """Raised inside ``open_write`` so the store never saves a copy identical to the archive."""


def _digest_of(store: ArchiveStore, name: str) -> ItemsDigest:
    digest = ItemsDigest()
    with store.open_read(name) as raw, gzip.GzipFile(fileobj=HashingReader(raw, digest), mode="rb") as lines:
        for line in lines:
            digest.add_line(item_line(line_item(line)))
    return digest


def _matches(digest: ItemsDigest, entry: Mapping[str, Any], count: int, items_digest: str) -> bool:
    return (
        digest.items == count and digest.items_digest == items_digest and digest.sha256.hexdigest() == entry["sha256"]
    )


def leftovers(store: ArchiveStore, table: str, manifest: Mapping[str, Any]) -> list[str]:
    """Data files in the table's archive folder that its manifest does not name (an interrupted rewrite's)."""
    folder = f"{ARCHIVE_ROOT}/{table}/"
    named = data_name(table, manifest)
    return [
        name
        for name in store.list(folder)
        if name != named and "/" not in name[len(folder) :] and name[len(folder) :].startswith("data")
    ]


def rewrite_archive(
    store: ArchiveStore,
    table: str,
    remove: Callable[[Mapping[str, Any]], str | None],
    *,
    token: str,
    before_swap: Callable[[Plan], None],
    reason: str,
    removed_to: str | None = None,
) -> RewriteReport:
    """Rewrite ``events/<table>/`` without the items for which ``remove(item)`` names a kind (None keeps it).

    ``removed_to`` (a store name) receives the removed items in the same line format (offboarding puts
    them in the export handed to the team): one more write, as big as what was removed.

    ``reason`` goes into the manifest's ``rewrites`` list (say why, never whose: the archive must not
    name what it no longer holds). See the module's docstring for the steps and their cost.
    """
    report = RewriteReport(table, "")
    try:
        manifest = read_manifest(store, table)
    except (ArchiveInvalid, ValueError) as error:
        report.action, report.detail = "corrupt", f"manifest unreadable: {error}"
        return report
    if manifest is None:
        report.action, report.detail = "missing", "no manifest: not an archive (or an export never finished)"
        return report
    for name in leftovers(store, table, manifest):
        store.delete(name)
    try:
        old_name = data_name(table, manifest)
    except ArchiveInvalid as error:
        report.action, report.detail = "corrupt", str(error)
        return report
    old_data = manifest.get("data") or {}
    report.items_before = int(manifest.get("item_count", -1))
    report.items_digest_before = str(manifest.get("items_digest", ""))
    new_name = f"{ARCHIVE_ROOT}/{table}/data-{token}.jsonl.gz"
    old, kept, removed = ItemsDigest(), ItemsDigest(), ItemsDigest()
    try:
        with contextlib.ExitStack() as stack:
            target = stack.enter_context(store.open_write(new_name))
            aside = stack.enter_context(store.open_write(removed_to)) if removed_to else None
            raw = stack.enter_context(store.open_read(old_name))
            lines = stack.enter_context(gzip.GzipFile(fileobj=HashingReader(raw, old), mode="rb"))
            with contextlib.ExitStack() as outputs:
                out = outputs.enter_context(
                    gzip.GzipFile(fileobj=HashingWriter(target, kept), mode="wb", compresslevel=6, mtime=0)
                )
                out_removed = (
                    outputs.enter_context(gzip.GzipFile(fileobj=aside, mode="wb", compresslevel=6, mtime=0))
                    if aside is not None
                    else None
                )
                for line in lines:
                    item = line_item(line)
                    canonical = item_line(item)
                    old.add_line(canonical)
                    kind = remove(item)
                    if kind is None:
                        out.write(canonical)
                        kept.add_line(canonical)
                    else:
                        removed.add_line(canonical)
                        report.removed_by[kind] = report.removed_by.get(kind, 0) + 1
                        if out_removed is not None:
                            out_removed.write(canonical)
            if not _matches(old, {"sha256": old_data.get("sha256")}, report.items_before, report.items_digest_before):
                raise ArchiveInvalid(
                    f"{old.items} items read, the manifest says {report.items_before} (or a digest differs)"
                )
            if not removed.items:
                raise _NothingToRemove
    except _NothingToRemove:
        report.action, report.kept, report.data = "clean", old.items, old_name
        report.bytes_read = old.bytes
        report.items_digest_after = report.items_digest_before
        return report
    except FileNotFoundError:
        report.action, report.detail = "corrupt", "data file missing"
        return report
    except (ArchiveInvalid, OSError, EOFError, zlib.error, ValueError, KeyError, TypeError) as error:
        store.delete(new_name)  # nothing was stored if the block raised; a stored one is only an orphan
        report.action, report.detail = "corrupt", f"the archive does not verify, left as it was: {error}"
        return report
    report.removed, report.kept = removed.items, kept.items
    report.items_digest_after = kept.items_digest
    # Read back what was stored, against what was written and against the old archive.
    back = _digest_of(store, new_name)
    report.bytes_read, report.bytes_written = old.bytes + back.bytes, kept.bytes
    adds_up = kept.items + removed.items == report.items_before and (
        kept.digest + removed.digest
    ) % DIGEST_MODULUS == int(report.items_digest_before or "0", 16)
    if not adds_up or not _matches(back, {"sha256": kept.sha256.hexdigest()}, kept.items, kept.items_digest):
        store.delete(new_name)
        report.action, report.detail = "corrupt", "the rewritten file did not read back as written: old archive kept"
        return report
    rewrites = [*manifest.get("rewrites", []), {"at": utcnow().isoformat(), "reason": reason, "removed": removed.items}]
    new_manifest = {
        **manifest,
        "item_count": kept.items,
        "items_digest": kept.items_digest,
        "data": {
            **old_data,
            "name": new_name,
            "sha256": kept.sha256.hexdigest(),
            "bytes": kept.bytes,
            "uncompressed_bytes": kept.raw_bytes,
        },
        "rewrites": rewrites,
    }
    plan: Plan = {"table": table, "old_data": old_name, "new_data": new_name, "manifest": new_manifest}
    before_swap(plan)
    finish_swap(store, plan)
    report.action, report.data = "rewritten", new_name
    report.bytes_written += len(json.dumps(new_manifest, indent=2, sort_keys=True).encode()) + 1
    return report


def finish_swap(store: ArchiveStore, plan: Plan) -> bool:
    """Complete a swap from its plan: the new manifest in place, the old data file gone. False when the plan is
    stale (the archive changed meanwhile, or the new file does not verify): the archive is left as it is and
    the new file deleted, so the caller rewrites it again."""
    table, manifest = plan["table"], plan["manifest"]
    manifest_file = archive_names(table)[1]
    current = read_manifest(store, table)
    if current is None or data_name(table, current) != plan["new_data"]:
        if current is not None and data_name(table, current) != plan["old_data"]:
            store.delete(plan["new_data"])  # someone else replaced the archive: this plan is stale
            return False
        try:
            back = _digest_of(store, plan["new_data"])
        except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError):
            store.delete(plan["new_data"])
            return False
        if not _matches(back, manifest["data"], manifest["item_count"], manifest["items_digest"]):
            store.delete(plan["new_data"])
            return False
        with store.open_write(manifest_file) as file:
            file.write(json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n")
    if plan["old_data"] != plan["new_data"]:
        store.delete(plan["old_data"])
    return True
