"""``restore``: a table created again from its archive's manifest and filled by BatchWriteItem."""

from __future__ import annotations

import gzip
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextvars import copy_context
from dataclasses import asdict, dataclass
from typing import Any

from botocore.exceptions import ClientError

from ddbmodels.core import capacity, connection, retry, tables
from ddbmodels.core.errors import AlreadyExists, Unavailable
from ddbmodels.core.storage import ArchiveStore
from ddbmodels.core.tables import DEFAULT_THROUGHPUT, PAY_PER_REQUEST, PROVISIONED
from ddbmodels.patterns.time_series.archive_format import (
    ARCHIVE_ROOT,
    DATA_FILE,
    MANIFEST_FILE,
    ArchiveInvalid,
    Progress,
    data_name,
    line_item,
)
from ddbmodels.patterns.time_series.tables import count_items
from ddbmodels.patterns.time_series.verify import verify_archive

BATCH_SIZE = 25  # BatchWriteItem's maximum
BATCH_BACKOFF = retry.Backoff(attempts=12, base_s=0.05, cap_s=5.0)


@dataclass(frozen=True)
class RestoreReport:
    table: str
    source: str
    items: int
    wcu: float
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _archived_table(archive_name: str) -> str:
    """``tracker-events-2026-07``, ``events/tracker-events-2026-07`` or ``…/manifest.json`` → the table name."""
    name = archive_name.removesuffix(f"/{MANIFEST_FILE}").removesuffix(f"/{DATA_FILE}")
    return name.removeprefix(f"{ARCHIVE_ROOT}/")


@capacity.access_pattern("time_series.restore")
def restore(
    store: ArchiveStore,
    archive_name: str,
    *,
    table_name: str | None = None,
    billing_mode: str = PAY_PER_REQUEST,
    workers: int = 4,
    on_progress: Progress | None = None,
) -> RestoreReport:
    """CreateTable from the manifest, BatchWriteItem every item — 1 WCU per item ≤ 1 KB, plus each index's write.

    The archive is verified first (ArchiveInvalid otherwise); the table (``table_name``, default
    the archived name) must not exist (AlreadyExists). Batches of 25 go out on ``workers``
    threads; UnprocessedItems are retried with full-jitter exponential backoff. At the end a
    strongly consistent COUNT Scan must find the manifest's item count (ArchiveInvalid if not).
    """
    source = _archived_table(archive_name)
    verification = verify_archive(store, source, on_progress=on_progress)
    if not verification.ok or verification.manifest is None:
        raise ArchiveInvalid(f"archive of {source} does not verify: {verification.detail}", table=source)
    manifest = verification.manifest
    target = table_name or source
    if tables.describe_table(target) is not None:
        raise AlreadyExists(f"table {target} exists; restore refuses to write into it", table=target)
    began = time.perf_counter()
    with capacity.measure() as meter:
        _create_from_manifest(target, manifest, billing_mode)
        tables.wait_active(target)
        data_file = data_name(source, manifest)  # the file the verified manifest names
        written = _write_items(target, store, data_file, workers, int(manifest["item_count"]), on_progress)
        in_table = count_items(target, consistent=True)
    if in_table != manifest["item_count"] or written != manifest["item_count"]:
        raise ArchiveInvalid(
            f"restored {written} items, table {target} counts {in_table}, manifest says {manifest['item_count']}",
            table=target,
        )
    return RestoreReport(target, source, written, round(meter.wcu, 3), round(time.perf_counter() - began, 3))


def _create_from_manifest(target: str, manifest: Mapping[str, Any], billing_mode: str) -> None:
    """CreateTable (free) with the archived key schema, attribute definitions and indexes."""
    tables.check_billing_mode(billing_mode)
    rcu, wcu = manifest.get("provisioned_throughput") or DEFAULT_THROUGHPUT
    throughput = {"ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}}
    extra = throughput if billing_mode == PROVISIONED else {}
    request: dict[str, Any] = {
        "TableName": target,
        "KeySchema": manifest["key_schema"],
        "AttributeDefinitions": manifest["attribute_definitions"],
        "BillingMode": billing_mode,
        **extra,
    }
    if manifest.get("global_secondary_indexes"):
        request["GlobalSecondaryIndexes"] = [{**i, **extra} for i in manifest["global_secondary_indexes"]]
    if manifest.get("local_secondary_indexes"):
        request["LocalSecondaryIndexes"] = manifest["local_secondary_indexes"]
    try:
        connection.client().create_table(**request)
    except ClientError as error:
        if tables.error_code(error) == "ResourceInUseException":
            raise AlreadyExists(f"table {target} exists; restore refuses to write into it", table=target) from None
        raise


def _write_items(
    target: str, store: ArchiveStore, data_file: str, workers: int, total: int, on_progress: Progress | None
) -> int:
    written = 0
    in_flight: set[Future[int]] = set()
    batch: list[dict[str, Any]] = []
    with (
        ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="restore") as pool,
        store.open_read(data_file) as raw,
        gzip.GzipFile(fileobj=raw, mode="rb") as lines,
    ):

        def send(items: list[dict[str, Any]]) -> None:
            nonlocal written, in_flight
            in_flight.add(pool.submit(copy_context().run, _batch_write, target, items))
            if len(in_flight) >= 4 * max(1, workers):
                finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                written += sum(f.result() for f in finished)
                if on_progress is not None:
                    on_progress(written, total, "restore")

        for line in lines:
            batch.append(line_item(line))
            if len(batch) == BATCH_SIZE:
                send(batch)
                batch = []
        if batch:
            send(batch)
        written += sum(f.result() for f in in_flight)
    if on_progress is not None:
        on_progress(written, total, "restore")
    return written


def _batch_write(table: str, items: list[dict[str, Any]]) -> int:
    """BatchWriteItem of ≤ 25 puts; UnprocessedItems again after a full-jitter backoff, bounded."""
    client = connection.client()
    requests: dict[str, Any] = {table: [{"PutRequest": {"Item": item}} for item in items]}
    for _ in retry.attempts(BATCH_BACKOFF):
        answer = client.batch_write_item(RequestItems=requests, ReturnConsumedCapacity="TOTAL")
        requests = answer.get("UnprocessedItems") or {}
        if not requests:
            return len(items)
    left = len(requests.get(table, []))
    raise Unavailable(
        f"BatchWriteItem left {left} items unprocessed after {BATCH_BACKOFF.attempts} attempts", table=table
    )
