"""The methods, and the Scans of one segment by each: scan and gsi page through, skip-scan jumps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ddbmodels.core import capacity, connection
from ddbmodels.patterns.distinct_keys.table import (
    MAX_VALUE,
    DistinctKeysError,
    Key,
    ReadFailed,
    TableInfo,
    TableNotFound,
    decode_key,
)

AUTO = "auto"
SCAN = "scan"
GSI = "gsi"
SKIP_SCAN = "skip-scan"
METHODS = (AUTO, SCAN, GSI, SKIP_SCAN)

ProgressCallback = Callable[[int, int], None]


class Tally:
    """Keys, requests, retries and capacity of one phase, shared by its segment threads."""

    def __init__(
        self, on_progress: ProgressCallback | None = None, request_offset: int = 0, progress_interval: float = 0.0
    ) -> None:
        self.keys: set[Key] = set()
        self.scans = 0
        self.items = 0
        self.retries = 0
        self.meter = capacity.CapacityMeter()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._on_progress = on_progress
        self._offset = request_offset
        self._last_progress = 0.0
        self._progress_interval = progress_interval

    def call(self, operation: Callable[..., dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        try:
            answer = operation(**kwargs)
        except ClientError as error:
            self._count_retries(error.response)
            code = error.response.get("Error", {}).get("Code", "")
            if code == "ResourceNotFoundException":
                raise TableNotFound(f"no table {kwargs.get('TableName')!r} (or index) on this endpoint") from None
            raise ReadFailed(f"Scan of {kwargs.get('TableName')!r} failed: {error}", retries=self.retries) from error
        except BotoCoreError as error:
            raise ReadFailed(f"Scan of {kwargs.get('TableName')!r} failed: {error}") from error
        self._count_retries(answer)
        return answer

    def _count_retries(self, answer: dict[str, Any]) -> None:
        attempts = int((answer.get("ResponseMetadata") or {}).get("RetryAttempts") or 0)
        if attempts:
            with self._lock:
                self.retries += attempts

    def add(self, keys: Iterable[Key], items: int) -> None:
        """One Scan answered: its keys; report progress at most every ``progress_interval`` seconds."""
        with self._lock:
            self.keys.update(keys)
            self.scans += 1
            self.items += items
            if self._on_progress is not None:
                now = time.monotonic()
                if now - self._last_progress >= self._progress_interval:
                    self._last_progress = now
                    self._on_progress(len(self.keys), self._offset + self.scans)

    def finish(self) -> None:
        """The last progress report, always made."""
        with self._lock:
            if self._on_progress is not None:
                self._on_progress(len(self.keys), self._offset + self.scans)


def _scan_kwargs(table: TableInfo, index_name: str | None, segment: int, total_segments: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "TableName": table.name,
        "ProjectionExpression": "#k",
        "ExpressionAttributeNames": {"#k": table.hash_key},
        "ReturnConsumedCapacity": "TOTAL",
    }
    if index_name is not None:
        kwargs["IndexName"] = index_name
    if total_segments > 1:
        kwargs["Segment"] = segment
        kwargs["TotalSegments"] = total_segments
    return kwargs


def scan_segment(tally: Tally, table: TableInfo, index_name: str | None, segment: int, total: int) -> None:
    """Every page of one segment, projecting the base table's partition key."""
    client = connection.client()
    kwargs = _scan_kwargs(table, index_name, segment, total)
    while not tally.stop.is_set():
        answer = tally.call(client.scan, **kwargs)
        items = answer.get("Items", [])
        tally.add((decode_key(item[table.hash_key]) for item in items if table.hash_key in item), len(items))
        start = answer.get("LastEvaluatedKey")
        if not start:
            return
        kwargs["ExclusiveStartKey"] = start


def skip_scan_segment(tally: Tally, table: TableInfo, index_name: str | None, segment: int, total: int) -> None:
    """Limit-1 Scans of one segment, each starting past the largest sort key of the previous collection."""
    assert table.range_key is not None
    assert table.range_type is not None
    client = connection.client()
    kwargs = _scan_kwargs(table, None, segment, total)
    kwargs["Limit"] = 1
    beyond = {table.range_type: MAX_VALUE[table.range_type]}
    jumped_from: Any = None  # the partition key the last jump was meant to leave behind
    while not tally.stop.is_set():
        answer = tally.call(client.scan, **kwargs)
        items = answer.get("Items", [])
        if items and jumped_from is not None and items[0][table.hash_key] == jumped_from:
            # The "largest" sort key was not the largest here (an endpoint that orders keys
            # differently): jumping again would loop forever on this collection.
            raise DistinctKeysError(
                f"skip-scan of {table.name!r} landed twice in the collection {decode_key(jumped_from)!r}: "
                "this endpoint orders sort keys differently; use --method scan",
                table=table.name,
            )
        tally.add((decode_key(item[table.hash_key]) for item in items), len(items))
        last = answer.get("LastEvaluatedKey")
        if not last:
            return
        jumped_from = last[table.hash_key] if items else None
        # An empty page with a LastEvaluatedKey (possible on AWS) has not shown us that key's
        # collection yet: continue from the key as given. Otherwise jump past the collection.
        kwargs["ExclusiveStartKey"] = {**last, table.range_key: beyond} if items else last
