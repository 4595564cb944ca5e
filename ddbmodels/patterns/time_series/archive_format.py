"""The archive of an events table: where it lies in the store, one line per item, and its digests.

A line is ``{"Item": {...}}`` in canonical DynamoDB JSON (sorted keys and sets); the items digest
is the sum of the lines' SHA-256 mod 2²⁵⁶, so it does not depend on the order of the lines.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Callable, Mapping
from typing import IO, Any

from ddbmodels.core.errors import DomainError

ARCHIVE_FORMAT = "tracker-dynamodb-archive"
FORMAT_VERSION = 1
ARCHIVE_ROOT = "events"
DATA_FILE = "data.jsonl.gz"
MANIFEST_FILE = "manifest.json"
DIGEST_MODULUS = 2**256

Progress = Callable[[int, int, str], None]


class ArchiveInvalid(DomainError, code="archive_invalid"):
    """The archive does not match its manifest (or the table does not match the archive)."""


def archive_names(table: str) -> tuple[str, str]:
    """Store names of a table's archive: (data file, manifest)."""
    return f"{ARCHIVE_ROOT}/{table}/{DATA_FILE}", f"{ARCHIVE_ROOT}/{table}/{MANIFEST_FILE}"


def data_name(table: str, manifest: Mapping[str, Any]) -> str:
    """The data file a manifest names (a rewritten archive's is ``data-<token>.jsonl.gz``), by default
    ``data.jsonl.gz``; ArchiveInvalid when it names anything outside the table's archive folder."""
    name = (manifest.get("data") or {}).get("name") or archive_names(table)[0]
    folder = f"{ARCHIVE_ROOT}/{table}/"
    rest = name[len(folder) :] if isinstance(name, str) and name.startswith(folder) else ""
    if not rest.startswith("data") or not rest.endswith(".jsonl.gz") or "/" in rest or ".." in rest:
        raise ArchiveInvalid(f"the manifest names a data file outside the archive: {name!r}", table=table)
    return name


def _to_json(value: Mapping[str, Any]) -> dict[str, Any]:
    """A wire-format attribute value (as botocore parses it) as DynamoDB JSON; sets sorted."""
    (tag, raw), *_ = value.items()
    if tag == "B":
        return {"B": base64.b64encode(raw).decode()}
    if tag == "BS":
        return {"BS": sorted(base64.b64encode(b).decode() for b in raw)}
    if tag in ("SS", "NS"):
        return {tag: sorted(raw)}
    if tag == "L":
        return {"L": [_to_json(v) for v in raw]}
    if tag == "M":
        return {"M": {k: _to_json(v) for k, v in raw.items()}}
    return {tag: raw}


def _from_json(value: Mapping[str, Any]) -> dict[str, Any]:
    """DynamoDB JSON back to what botocore sends (binaries as bytes)."""
    (tag, raw), *_ = value.items()
    if tag == "B":
        return {"B": base64.b64decode(raw, validate=True)}
    if tag == "BS":
        return {"BS": [base64.b64decode(b, validate=True) for b in raw]}
    if tag == "L":
        return {"L": [_from_json(v) for v in raw]}
    if tag == "M":
        return {"M": {k: _from_json(v) for k, v in raw.items()}}
    return {tag: raw}


def item_line(item: Mapping[str, Any]) -> bytes:
    """One archive line: ``{"Item": {...}}`` in canonical JSON (sorted keys and sets, UTF-8), newline-terminated."""
    record = {"Item": {name: _to_json(value) for name, value in item.items()}}
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def line_item(line: bytes) -> dict[str, Any]:
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("Item"), dict):
        raise ValueError('an archive line is not {"Item": {...}}')
    return {name: _from_json(value) for name, value in record["Item"].items()}


def _line_hash(line: bytes) -> int:
    return int.from_bytes(hashlib.sha256(line).digest(), "big")


class ItemsDigest:
    """Count, SHA-256 of the bytes, and the order-independent items digest (Σ sha256(line) mod 2²⁵⁶)."""

    def __init__(self) -> None:
        self.items = 0
        self.digest = 0
        self.sha256 = hashlib.sha256()
        self.bytes = 0
        self.raw_bytes = 0

    def add_line(self, line: bytes) -> None:
        self.items += 1
        self.raw_bytes += len(line)
        self.digest = (self.digest + _line_hash(line)) % DIGEST_MODULUS

    def add_bytes(self, chunk: bytes) -> None:
        self.sha256.update(chunk)
        self.bytes += len(chunk)

    @property
    def items_digest(self) -> str:
        return f"{self.digest:064x}"


class HashingWriter:
    """What GzipFile writes to: the store's file, hashed on the way."""

    def __init__(self, file: IO[bytes], digest: ItemsDigest) -> None:
        self.file, self.digest = file, digest

    def write(self, chunk: bytes) -> int:
        self.digest.add_bytes(bytes(chunk))
        return self.file.write(chunk)

    def flush(self) -> None:
        self.file.flush()


class HashingReader:
    def __init__(self, file: IO[bytes], digest: ItemsDigest) -> None:
        self.file, self.digest = file, digest

    def read(self, size: int = -1, /) -> bytes:
        chunk = self.file.read(size)
        self.digest.add_bytes(chunk)
        return chunk

    def seek(self, offset: int, /) -> int:
        raise io.UnsupportedOperation("the archive is read once, front to back, while hashed")
