"""``export_table``: a parallel Scan into the data file, then the manifest — the export's commit point."""

from __future__ import annotations

import contextlib
import gzip
import json
import queue
import threading
import time
from collections.abc import Generator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import Any

from ddbmodels.core import capacity, connection, tables
from ddbmodels.core.errors import NotFound
from ddbmodels.core.keys import utcnow
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.core.tables import PROVISIONED, billing_mode_of, provisioned_throughput
from ddbmodels.patterns.time_series.archive_format import (
    ARCHIVE_FORMAT,
    FORMAT_VERSION,
    HashingWriter,
    ItemsDigest,
    Progress,
    archive_names,
    item_line,
)
from ddbmodels.patterns.time_series.family import PeriodTables
from ddbmodels.patterns.time_series.periods import period_shift


def _scan_pages(table: str, segments: int) -> Generator[list[dict[str, Any]], None, None]:
    """Pages of a parallel Scan, yielded in this thread; ``segments`` threads make the requests.

    Pages travel through a bounded queue so only this thread writes the archive and calls the
    progress callback (the caller's own resources, such as a database connection, stay in it).
    """
    pages: queue.Queue[object] = queue.Queue(maxsize=2 * segments)
    stop = threading.Event()
    done = object()
    client = connection.client()

    def put(message: object) -> None:
        while not stop.is_set():
            try:
                pages.put(message, timeout=0.1)
                return
            except queue.Full:
                continue

    def worker(segment: int) -> None:
        request: dict[str, Any] = {"TableName": table, "ReturnConsumedCapacity": "TOTAL"}
        request.update({"Segment": segment, "TotalSegments": segments} if segments > 1 else {})
        try:
            while not stop.is_set():
                page = client.scan(**request)
                put(page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        except BaseException as error:  # noqa: BLE001 (handed to the consuming thread, which raises it)
            put(error)
        finally:
            put(done)

    with ThreadPoolExecutor(max_workers=segments, thread_name_prefix="scan") as pool:
        for segment in range(segments):
            pool.submit(copy_context().run, worker, segment)  # the caller's capacity meters see the scan
        try:
            finished = 0
            while finished < segments:
                message = pages.get()
                if message is done:
                    finished += 1
                elif isinstance(message, BaseException):
                    raise message
                else:
                    yield message  # type: ignore[misc]
        finally:
            stop.set()


def export_table(
    table: str,
    store: ArchiveStore,
    *,
    family: PeriodTables | None = None,
    segments: int = 4,
    on_progress: Progress | None = None,
) -> dict[str, Any]:
    """Parallel Scan (eventually consistent) — 0.5 RCU per 4 KB of items; writes data file, then manifest.

    Returns the manifest; with the table's ``family`` it records the table's period too. The data
    file is written through ``store.open_write`` (atomic) while
    being hashed; the manifest follows only once the data file is complete.
    """
    if segments < 1:
        raise ValueError(f"segments must be ≥ 1, got {segments}")
    description = tables.describe_table(table)
    if description is None:
        raise NotFound(f"table {table} does not exist", table=table)
    data_name, manifest_name = archive_names(table)
    total = int(description.get("ItemCount", 0))  # refreshed about every six hours on AWS: a hint only
    digest = ItemsDigest()
    began = time.perf_counter()
    with (
        capacity.measure() as meter,
        store.open_write(data_name) as raw,
        gzip.GzipFile(fileobj=HashingWriter(raw, digest), mode="wb", compresslevel=6, mtime=0) as out,
        contextlib.closing(_scan_pages(table, segments)) as pages,
    ):
        for page in pages:
            lines = [item_line(item) for item in page]
            out.write(b"".join(lines))
            for line in lines:
                digest.add_line(line)
            if on_progress is not None:
                on_progress(digest.items, max(total, digest.items), "export")
    seconds = time.perf_counter() - began
    manifest = _manifest(description, digest, family, segments=segments, rcu=meter.rcu, seconds=seconds)
    with store.open_write(manifest_name) as file:
        file.write(json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n")
    return manifest


def _manifest(
    description: Mapping[str, Any],
    digest: ItemsDigest,
    family: PeriodTables | None,
    *,
    segments: int,
    rcu: float,
    seconds: float,
) -> dict[str, Any]:
    table = description["TableName"]
    parsed = family.parse_table_name(table) if family is not None else None
    period = None
    if parsed is not None:
        kind, period_id, start = parsed
        period = {
            "kind": kind,
            "id": period_id,
            "start": start.isoformat(),
            "end": period_shift(kind, start, 1).isoformat(),
        }
    billing = billing_mode_of(description)

    def index(definition: Mapping[str, Any]) -> dict[str, Any]:
        return {k: definition[k] for k in ("IndexName", "KeySchema", "Projection")}

    return {
        "format": ARCHIVE_FORMAT,
        "format_version": FORMAT_VERSION,
        "table": table,
        "period": period,
        "key_schema": description["KeySchema"],
        "attribute_definitions": description["AttributeDefinitions"],
        "global_secondary_indexes": [index(i) for i in description.get("GlobalSecondaryIndexes", [])],
        "local_secondary_indexes": [index(i) for i in description.get("LocalSecondaryIndexes", [])],
        "billing_mode": billing,
        "provisioned_throughput": list(provisioned_throughput(description)) if billing == PROVISIONED else None,
        "item_count": digest.items,
        "items_digest": digest.items_digest,
        "items_digest_algorithm": "sum of SHA-256 of each canonical line, mod 2^256, hex",
        "data": {
            "name": archive_names(table)[0],
            "sha256": digest.sha256.hexdigest(),
            "bytes": digest.bytes,
            "uncompressed_bytes": digest.raw_bytes,
            "compression": "GZIP",
            "format": "DYNAMODB_JSON",
        },
        "exported_at": utcnow().isoformat(),
        "export": {"segments": segments, "consistent_read": False, "rcu": round(rcu, 3), "seconds": round(seconds, 3)},
    }
