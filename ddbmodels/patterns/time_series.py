"""Time-series tables (seed 004): one table per period, hot while current, archived and dropped when old.

``rotate`` runs on a schedule: it creates the next period's table ahead of time (and the
current one if missing), gives the current and next tables the *hot* provisioned throughput and
every older table the *cold* one. On-demand tables have no throughput to set and are left alone.

``archive`` takes every events table older than ``retention`` periods out of DynamoDB:

1. export — a parallel Scan (``segments`` threads, eventually consistent: 0.5 RCU per 4 KB)
   into ``events/<table>/data.jsonl.gz``, one line per item in DynamoDB JSON, the line format
   of AWS's own ExportTableToPointInTime (``{"Item": {...}}``), so numbers keep all 38 digits
   and binaries, sets and maps come back exactly (and AWS's ImportTable could read it);
2. manifest — ``events/<table>/manifest.json``: key schema, attribute definitions, indexes,
   item count, SHA-256 of the data file and an order-independent digest of the items. It is
   written last: its presence is the commit point of the export;
3. verify — read the archive back (count, SHA-256, digest against the manifest), then count
   the table with a strongly consistent ``Select=COUNT`` Scan (1 RCU per 4 KB): a straggler
   write after the export makes the counts differ and the table stays;
4. drop — ``fence()`` (the caller's ownership check, a conditional write) right before
   DeleteTable. Dropping costs nothing, whatever the table holds; deleting the items one by one
   would cost a write each (two here: the ``by_day`` index holds a copy of every item).

Killed at any step and run again, it converges: no manifest → export again; manifest present
and the table still there → verify and drop (nothing is exported twice when the archive is
good); table gone and the manifest verifies → "already archived". A table is never dropped
before its archive was read back and matched in the same run. ``restore`` recreates a table
from its archive (BatchWriteItem, 1 WCU per item ≤ 1 KB plus the index writes).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import io
import json
import queue
import random
import threading
import time
import zlib
from collections.abc import Callable, Generator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextvars import copy_context
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import IO, Any

from botocore.exceptions import ClientError

from ddbmodels import capacity, connection, events
from ddbmodels.archive import ArchiveStore
from ddbmodels.errors import AlreadyExists, DomainError, NotFound
from ddbmodels.events import PAY_PER_REQUEST, PROVISIONED, PeriodKind

ARCHIVE_FORMAT = "tracker-dynamodb-archive"
FORMAT_VERSION = 1
ARCHIVE_ROOT = "events"
DATA_FILE = "data.jsonl.gz"
MANIFEST_FILE = "manifest.json"
DIGEST_MODULUS = 2**256
DEFAULT_HOT = (25, 25)
DEFAULT_COLD = (1, 1)
BATCH_SIZE = 25  # BatchWriteItem's maximum
BATCH_ATTEMPTS = 12
BACKOFF_BASE_S = 0.05
BACKOFF_MAX_S = 5.0

Progress = Callable[[int, int, str], None]
Fence = Callable[[], object]


class ArchiveInvalid(DomainError):
    """The archive does not match its manifest (or the table does not match the archive)."""

    code = "archive_invalid"


# ---------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class EventTable:
    """An events table of the current prefix, with its period."""

    name: str
    kind: PeriodKind
    period: str
    start: datetime
    end: datetime


def list_event_tables() -> list[EventTable]:
    """ListTables (free, 100 names a page), keep ``<prefix>events-<period id>``, oldest period first."""
    client = connection.client()
    found: list[EventTable] = []
    request: dict[str, Any] = {}
    while True:
        page = client.list_tables(**request)
        for name in page.get("TableNames", []):
            parsed = events.parse_events_table_name(name)
            if parsed is not None:
                kind, period, start = parsed
                found.append(EventTable(name, kind, period, start, events.period_shift(kind, start, 1)))
        if "LastEvaluatedTableName" not in page:
            return sorted(found, key=lambda t: (t.start, t.end, t.name))
        request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def archive_names(table: str) -> tuple[str, str]:
    """Store names of a table's archive: (data file, manifest)."""
    return f"{ARCHIVE_ROOT}/{table}/{DATA_FILE}", f"{ARCHIVE_ROOT}/{table}/{MANIFEST_FILE}"


def count_items(table: str, *, consistent: bool = True, segments: int = 1) -> int:
    """Scan Select=COUNT — 1 RCU per 4 KB of items read (0.5 if not consistent), no items returned."""
    client = connection.client()

    def count(segment: int) -> int:
        request: dict[str, Any] = {"TableName": table, "Select": "COUNT", "ConsistentRead": consistent}
        request.update({"Segment": segment, "TotalSegments": segments} if segments > 1 else {})
        total = 0
        while True:
            page = client.scan(ReturnConsumedCapacity="TOTAL", **request)
            total += int(page["Count"])
            if "LastEvaluatedKey" not in page:
                return total
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    return sum(events.map_in_threads(count, range(segments), workers=segments))


def _drop_table(table: str) -> str:
    """DeleteTable (free); "" when dropped (or already gone), else why not."""
    try:
        connection.client().delete_table(TableName=table)
    except ClientError as error:
        code = events.error_code(error)
        if code == "ResourceNotFoundException":
            return ""
        if code in ("ResourceInUseException", "LimitExceededException"):
            return f"DeleteTable refused ({code}: {error.response['Error'].get('Message', '')})"
        raise
    return ""


# ---------------------------------------------------------------------------- rotation


@dataclass(frozen=True)
class RotateAction:
    table: str
    period: str
    action: str  # created | hot | cold | unchanged | on-demand | future | busy | limit-exceeded
    detail: str = ""

    def line(self) -> str:
        return f"{self.table}: {self.action}{f' — {self.detail}' if self.detail else ''}"


@dataclass
class RotateReport:
    kind: PeriodKind
    now: datetime
    current: str
    next: str
    actions: list[RotateAction] = field(default_factory=list)

    @property
    def created(self) -> list[str]:
        return [a.table for a in self.actions if a.action == "created"]

    @property
    def changed(self) -> list[str]:
        return [a.table for a in self.actions if a.action in ("hot", "cold")]

    @property
    def refused(self) -> list[str]:
        return [a.table for a in self.actions if a.action in ("busy", "limit-exceeded")]

    def lines(self) -> list[str]:
        return [a.line() for a in self.actions]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "now": self.now.isoformat(),
            "current": self.current,
            "next": self.next,
            "actions": [asdict(a) for a in self.actions],
        }


def _throughput(description: Mapping[str, Any]) -> tuple[int, int]:
    pt = description.get("ProvisionedThroughput", {})
    return int(pt.get("ReadCapacityUnits", 0)), int(pt.get("WriteCapacityUnits", 0))


def _set_throughput(table: Mapping[str, Any], target: tuple[int, int]) -> str:
    """UpdateTable of the table and its indexes to ``target`` where they differ (free); what changed."""
    update: dict[str, Any] = {}
    changes = []
    wanted = {"ReadCapacityUnits": target[0], "WriteCapacityUnits": target[1]}
    if _throughput(table) != target:
        update["ProvisionedThroughput"] = wanted
        changes.append(f"table {_throughput(table)[0]}/{_throughput(table)[1]}")
    index_updates = [
        {"Update": {"IndexName": index["IndexName"], "ProvisionedThroughput": wanted}}
        for index in table.get("GlobalSecondaryIndexes", [])
        if _throughput(index) != target
    ]
    if index_updates:
        update["GlobalSecondaryIndexUpdates"] = index_updates
        changes.append(f"{len(index_updates)} index(es)")
    if not update:
        return ""
    connection.client().update_table(TableName=table["TableName"], **update)
    return f"{target[0]}/{target[1]} RCU/WCU (was {', '.join(changes)})"


def rotate(
    kind: PeriodKind,
    now: datetime | None = None,
    *,
    hot: tuple[int, int] = DEFAULT_HOT,
    cold: tuple[int, int] = DEFAULT_COLD,
    billing_mode: str = PAY_PER_REQUEST,
) -> RotateReport:
    """CreateTable for the current and next periods if missing, UpdateTable hot/cold — all free (control plane).

    New tables are created in ``billing_mode``; provisioned ones start hot, so the first writes
    after the rollover are not throttled even if rotation runs late (the price: the next table's
    hot capacity is paid for one period ahead). Existing provisioned tables (whatever
    ``billing_mode`` says now) get ``hot`` when current or next and ``cold`` when older —
    table and indexes alike, one UpdateTable, skipped when already there. DynamoDB limits
    decreases per day: a LimitExceededException is reported as such and the table left as it
    is; a table that is not ACTIVE is reported busy. Tables beyond the next period are left.
    """
    now = events.utcnow() if now is None else events.as_utc(now)
    events.check_billing_mode(billing_mode)
    current = events.events_table_name(kind, now)
    following = events.events_table_name(kind, events.period_shift(kind, now, 1))
    report = RotateReport(kind, now, current, following)
    created = set()
    for name in (current, following):
        if events.create_events_table(name, billing_mode=billing_mode, throughput=hot, wait=False):
            created.add(name)
    how = f"{billing_mode} {hot[0]}/{hot[1]} RCU/WCU" if billing_mode == PROVISIONED else billing_mode
    for name in created:
        events.wait_active(name)
    horizon = events.period_shift(kind, now, 2)  # end of the next period
    for table in list_event_tables():
        if table.name in created:
            report.actions.append(RotateAction(table.name, table.period, "created", how))
            continue
        if table.end > horizon:
            report.actions.append(RotateAction(table.name, table.period, "future", "beyond the next period"))
            continue
        description = events.describe_table(table.name)
        if description is None:
            continue  # dropped since ListTables (archived by a concurrent job)
        target = hot if table.name in (current, following) else cold
        report.actions.append(_rotate_one(table, description, target, "hot" if target is hot else "cold"))
    return report


def _rotate_one(table: EventTable, description: Mapping[str, Any], target: tuple[int, int], label: str) -> RotateAction:
    if description.get("BillingModeSummary", {}).get("BillingMode") == PAY_PER_REQUEST:
        return RotateAction(table.name, table.period, "on-demand", "no throughput to set")
    busy = [description["TableStatus"], *(i["IndexStatus"] for i in description.get("GlobalSecondaryIndexes", []))]
    if any(status != "ACTIVE" for status in busy):
        return RotateAction(table.name, table.period, "busy", f"status {'/'.join(busy)}; next run retries")
    try:
        changed = _set_throughput(description, target)
    except ClientError as error:
        code, message = events.error_code(error), error.response.get("Error", {}).get("Message", "")
        if code == "LimitExceededException":
            return RotateAction(
                table.name,
                table.period,
                "limit-exceeded",
                f"DynamoDB refused to set {label} {target[0]}/{target[1]} ({message}); left as it is, "
                "decreases are limited per day — the next run tries again",
            )
        if code == "ResourceInUseException":
            return RotateAction(table.name, table.period, "busy", message)
        raise
    if not changed:
        return RotateAction(table.name, table.period, "unchanged", f"already {label} {target[0]}/{target[1]}")
    return RotateAction(table.name, table.period, label, changed)


# ---------------------------------------------------------------------------- the archive format


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


def _line_item(line: bytes) -> dict[str, Any]:
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("Item"), dict):
        raise ValueError('an archive line is not {"Item": {...}}')
    return {name: _from_json(value) for name, value in record["Item"].items()}


def _line_hash(line: bytes) -> int:
    return int.from_bytes(hashlib.sha256(line).digest(), "big")


class _Digest:
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


class _HashingWriter:
    """What GzipFile writes to: the store's file, hashed on the way."""

    def __init__(self, file: IO[bytes], digest: _Digest) -> None:
        self.file, self.digest = file, digest

    def write(self, chunk: bytes) -> int:
        self.digest.add_bytes(bytes(chunk))
        return self.file.write(chunk)

    def flush(self) -> None:
        self.file.flush()


# ---------------------------------------------------------------------------- export and verify


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
    digest = _Digest()
    try:
        with store.open_read(archive_names(table)[0]) as raw:
            hashing = _HashReader(raw, digest)
            with gzip.GzipFile(fileobj=hashing, mode="rb") as lines:
                for line in lines:
                    digest.add_line(item_line(_line_item(line)))  # re-canonicalized: proves each line parses
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


class _HashReader:
    def __init__(self, file: IO[bytes], digest: _Digest) -> None:
        self.file, self.digest = file, digest

    def read(self, size: int = -1, /) -> bytes:
        chunk = self.file.read(size)
        self.digest.add_bytes(chunk)
        return chunk

    def seek(self, offset: int, /) -> int:
        raise io.UnsupportedOperation("the archive is read once, front to back, while hashed")


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
    table: str, store: ArchiveStore, *, segments: int = 4, on_progress: Progress | None = None
) -> dict[str, Any]:
    """Parallel Scan (eventually consistent) — 0.5 RCU per 4 KB of items; writes data file, then manifest.

    Returns the manifest. The data file is written through ``store.open_write`` (atomic) while
    being hashed; the manifest follows only once the data file is complete.
    """
    if segments < 1:
        raise ValueError(f"segments must be ≥ 1, got {segments}")
    description = events.describe_table(table)
    if description is None:
        raise NotFound(f"table {table} does not exist", table=table)
    data_name, manifest_name = archive_names(table)
    total = int(description.get("ItemCount", 0))  # refreshed about every six hours on AWS: a hint only
    digest = _Digest()
    began = time.perf_counter()
    with (
        capacity.measure() as meter,
        store.open_write(data_name) as raw,
        gzip.GzipFile(fileobj=_HashingWriter(raw, digest), mode="wb", compresslevel=6, mtime=0) as out,
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
    manifest = _manifest(description, digest, segments=segments, rcu=meter.rcu, seconds=seconds)
    with store.open_write(manifest_name) as file:
        file.write(json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n")
    return manifest


def _manifest(
    description: Mapping[str, Any], digest: _Digest, *, segments: int, rcu: float, seconds: float
) -> dict[str, Any]:
    table = description["TableName"]
    parsed = events.parse_events_table_name(table)
    period = None
    if parsed is not None:
        kind, period_id, start = parsed
        period = {
            "kind": kind,
            "id": period_id,
            "start": start.isoformat(),
            "end": events.period_shift(kind, start, 1).isoformat(),
        }
    billing = description.get("BillingModeSummary", {}).get("BillingMode", PROVISIONED)

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
        "provisioned_throughput": list(_throughput(description)) if billing == PROVISIONED else None,
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
        "exported_at": events.utcnow().isoformat(),
        "export": {"segments": segments, "consistent_read": False, "rcu": round(rcu, 3), "seconds": round(seconds, 3)},
    }


# ---------------------------------------------------------------------------- archive


@dataclass
class ArchiveReport:
    """What ``archive`` did (or, dry run, would do) with one table."""

    table: str
    period: str
    action: str  # archived | resumed | already_archived | would_archive | would_resume | failed | corrupt | busy
    items: int = 0
    bytes: int = 0
    rcu: float = 0.0
    wcu: float = 0.0
    export_rcu: float = 0.0
    count_rcu: float = 0.0
    seconds: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.action not in ("failed", "corrupt", "busy")

    def line(self) -> str:
        figures = f"{self.items} items, {self.bytes} bytes, {self.rcu:.1f} RCU, {self.seconds:.2f}s"
        return f"{self.table}: {self.action} ({figures}){f' — {self.detail}' if self.detail else ''}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def archive(
    kind: PeriodKind,
    now: datetime | None,
    retention: int,
    store: ArchiveStore,
    *,
    fence: Fence,
    dry_run: bool = False,
    segments: int = 4,
    on_progress: Progress | None = None,
    recheck_archived: bool = True,
) -> list[ArchiveReport]:
    """Archive and drop every events table older than ``retention`` periods — export ≈ 0.5 RCU per 4 KB,
    verification count 1 RCU per 4 KB, DeleteTable free.

    ``retention`` (≥ 1) full periods stay beside the current one: monthly with retention 3 on
    2026-11-22 keeps 2026-08 … 2026-11 and archives 2026-07 and older (of any period kind).
    Tables go oldest first, one at a time (``segments`` threads each). ``fence()`` is called
    right before each DeleteTable; when it raises, the exception ends the run with that table
    still in place (the next owner resumes from its manifest). Archives of tables already gone
    are read back again (``recheck_archived``; False only checks that the manifest exists).
    ``dry_run`` makes no change and no Scan: it says what would happen.
    """
    if not isinstance(retention, int) or retention < 1:
        raise ValueError(f"retention must be an integer ≥ 1 (the previous period must stay), got {retention!r}")
    now = events.utcnow() if now is None else events.as_utc(now)
    cutoff = events.period_shift(kind, now, -retention)
    # The tables still in DynamoDB, and those only left as an archive (a drop already happened).
    candidates = {(t.start, t.name): t.period for t in list_event_tables() if t.end <= cutoff}
    for name in store.list(f"{ARCHIVE_ROOT}/{connection.table_name(events.BASE)}"):
        table, _, file = name.removeprefix(f"{ARCHIVE_ROOT}/").partition("/")
        parsed = events.parse_events_table_name(table)
        if file == MANIFEST_FILE and parsed and events.period_shift(parsed[0], parsed[2], 1) <= cutoff:
            candidates.setdefault((parsed[2], table), parsed[1])
    return [
        archive_table(
            table,
            store,
            fence=fence,
            dry_run=dry_run,
            segments=segments,
            on_progress=on_progress,
            recheck_archived=recheck_archived,
            period=period,
        )
        for (_, table), period in sorted(candidates.items())
    ]


def archive_table(
    table: str,
    store: ArchiveStore,
    *,
    fence: Fence,
    dry_run: bool = False,
    segments: int = 4,
    on_progress: Progress | None = None,
    recheck_archived: bool = True,
    period: str = "",
) -> ArchiveReport:
    """One table through export → manifest → verify → count → fence → DeleteTable, resuming where it stopped."""
    began = time.perf_counter()
    report = ArchiveReport(table, period, "")
    with capacity.measure() as meter:
        _archive_table(report, store, fence, dry_run, segments, on_progress, recheck_archived)
    report.rcu, report.wcu = round(meter.rcu, 3), round(meter.wcu, 3)
    report.seconds = round(time.perf_counter() - began, 3)
    return report


def _archive_table(
    report: ArchiveReport,
    store: ArchiveStore,
    fence: Fence,
    dry_run: bool,
    segments: int,
    on_progress: Progress | None,
    recheck_archived: bool,
) -> None:
    table = report.table
    description = events.describe_table(table)
    status = description["TableStatus"] if description else "GONE"
    if status in ("GONE", "DELETING"):
        _report_gone(report, store, recheck_archived, on_progress)
        return
    if status == "CREATING":
        report.action, report.detail = "busy", "table is being created"
        return
    assert description is not None
    existing = verify_archive(store, table, on_progress=on_progress) if store.exists(archive_names(table)[1]) else None
    if dry_run:
        if existing is not None and existing.ok:
            report.action, report.items, report.bytes = "would_resume", existing.items, existing.bytes
            report.detail = "archive verified; would count the table, then drop it"
        else:
            report.action, report.items = "would_archive", int(description.get("ItemCount", 0))
            report.bytes = int(description.get("TableSizeBytes", 0))
            report.detail = "would export, verify and drop (items and bytes as DescribeTable reports them)"
            if existing is not None:
                report.detail += f"; the existing archive does not verify: {existing.detail}"
        return
    resumed = existing is not None and existing.ok
    if existing is not None and not existing.ok:
        report.detail = f"existing archive replaced ({existing.detail}); "
    if not resumed:
        with capacity.measure() as export_meter:
            export_table(table, store, segments=segments, on_progress=on_progress)
        report.export_rcu = round(export_meter.rcu, 3)
        existing = verify_archive(store, table, on_progress=on_progress)
    assert existing is not None
    report.items, report.bytes = existing.items, existing.bytes
    if not existing.ok:
        store.delete(archive_names(table)[1])  # no manifest claims a good archive; the next run exports again
        report.action, report.detail = "failed", report.detail + f"verification failed, table kept: {existing.detail}"
        return
    if on_progress is not None:
        on_progress(0, existing.items, "count")
    with capacity.measure() as count_meter:
        in_table = count_items(table, consistent=True, segments=segments)
    report.count_rcu = round(count_meter.rcu, 3)
    if on_progress is not None:
        on_progress(in_table, existing.items, "count")
    if in_table != existing.items:
        report.action = "failed"
        report.detail += (
            f"the table holds {in_table} items, the archive {existing.items}: table kept, next run exports again"
        )
        store.delete(archive_names(table)[1])
        return
    fence()  # raises when this run no longer owns the job: nothing is dropped
    refused = _drop_table(table)
    if refused:
        report.action, report.detail = (
            "busy",
            report.detail + f"archived and verified; {refused}; the next run drops it",
        )
        return
    report.action = "resumed" if resumed else "archived"
    report.detail += "archive verified against the manifest and the table's count; table dropped"


def _report_gone(report: ArchiveReport, store: ArchiveStore, recheck: bool, on_progress: Progress | None) -> None:
    if recheck:
        verification = verify_archive(store, report.table, on_progress=on_progress)
        report.items, report.bytes = verification.items, verification.bytes
        if verification.ok:
            report.action, report.detail = "already_archived", "table gone; archive verified"
        else:
            report.action = "corrupt"
            report.detail = f"the table is gone and its archive does not verify: {verification.detail}"
        return
    manifest = read_manifest(store, report.table)
    if manifest is None or not store.exists(archive_names(report.table)[0]):
        report.action, report.detail = "corrupt", "the table is gone and its archive is incomplete"
        return
    report.items, report.bytes = int(manifest.get("item_count", 0)), int((manifest.get("data") or {}).get("bytes", 0))
    report.action, report.detail = "already_archived", "table gone; manifest present (not re-read)"


# ---------------------------------------------------------------------------- restore


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
    if events.describe_table(target) is not None:
        raise AlreadyExists(f"table {target} exists; restore refuses to write into it", table=target)
    began = time.perf_counter()
    with capacity.measure() as meter:
        _create_from_manifest(target, manifest, billing_mode)
        events.wait_active(target)
        written = _write_items(target, store, source, workers, int(manifest["item_count"]), on_progress)
        in_table = count_items(target, consistent=True)
    if in_table != manifest["item_count"] or written != manifest["item_count"]:
        raise ArchiveInvalid(
            f"restored {written} items, table {target} counts {in_table}, manifest says {manifest['item_count']}",
            table=target,
        )
    return RestoreReport(target, source, written, round(meter.wcu, 3), round(time.perf_counter() - began, 3))


def _create_from_manifest(target: str, manifest: Mapping[str, Any], billing_mode: str) -> None:
    """CreateTable (free) with the archived key schema, attribute definitions and indexes."""
    events.check_billing_mode(billing_mode)
    rcu, wcu = manifest.get("provisioned_throughput") or events.DEFAULT_THROUGHPUT
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
        if events.error_code(error) == "ResourceInUseException":
            raise AlreadyExists(f"table {target} exists; restore refuses to write into it", table=target) from None
        raise


def _write_items(
    target: str, store: ArchiveStore, source: str, workers: int, total: int, on_progress: Progress | None
) -> int:
    written = 0
    in_flight: set[Future[int]] = set()
    batch: list[dict[str, Any]] = []
    with (
        ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="restore") as pool,
        store.open_read(archive_names(source)[0]) as raw,
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
            batch.append(_line_item(line))
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
    for attempt in range(BATCH_ATTEMPTS):
        answer = client.batch_write_item(RequestItems=requests, ReturnConsumedCapacity="TOTAL")
        requests = answer.get("UnprocessedItems") or {}
        if not requests:
            return len(items)
        time.sleep(random.uniform(0, min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**attempt)))
    left = len(requests.get(table, []))
    raise DomainError(f"BatchWriteItem left {left} items unprocessed after {BATCH_ATTEMPTS} attempts", table=table)
