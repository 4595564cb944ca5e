"""Attaching and detaching files across two systems — DynamoDB and file storage — and repairing
whatever a crash left in between. Files go through a tiny storage protocol (``BlobStore``), so
ddbmodels stays free of Django; the web side adapts Django's storage API to it.

Attach: item in Attaching (with its in_flight index keys) → file saved → read back, size and
SHA-256 checked → Attached (index keys removed). Detach: Detaching (index keys set) → file
deleted → Detached. A process that dies between two steps leaves the item in the in_flight
index, and ``reconcile`` finishes or rolls it back from what storage holds.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import IO, Any, Protocol, runtime_checkable

from ddbmodels import attachments as ops
from ddbmodels.attachments.model import ATTACHED, ATTACHING, DETACHING, FAILED, STATES, AttachmentItem
from ddbmodels.attachments.writes import AlreadyBegun
from ddbmodels.core import capacity
from ddbmodels.core.errors import ChangedSinceRead, DomainError, InvalidInput, Unavailable
from ddbmodels.core.storage import LocalDirStore

log = logging.getLogger(__name__)
CHUNK = 256 * 1024
COMPLETE, PARTIAL, MISSING = "complete", "partial", "missing"


class EmptyFile(InvalidInput, code="empty_file"):
    """The file is empty."""


class FileTooLarge(InvalidInput, code="file_too_large"):
    """The file is larger than the limit."""


class AttachFailed(Unavailable, code="attach_failed"):
    """The file could not be stored and verified; nothing was attached."""


class DetachIncomplete(DomainError, code="detach_incomplete"):
    """The attachment is hidden but its file could not be deleted yet; the repair job will."""


@runtime_checkable
class BlobStore(Protocol):
    """Files by name (``/``-separated relative paths)."""

    def save(self, name: str, content: IO[bytes]) -> None:
        """Store ``content`` under exactly ``name`` (raise rather than pick another name)."""
        ...

    def open_read(self, name: str) -> AbstractContextManager[IO[bytes]]:
        """A binary file to read; FileNotFoundError when there is no such file."""
        ...

    def exists(self, name: str) -> bool: ...

    def delete(self, name: str) -> None:
        """Remove the file; nothing happens when it does not exist."""
        ...


class LocalBlobStore(LocalDirStore):
    """A BlobStore in a directory (tests, benchmarks): written to a temp file, then renamed."""

    def save(self, name: str, content: IO[bytes]) -> None:
        with self.open_write(name) as target:
            shutil.copyfileobj(content, target, CHUNK)


def digest(content: IO[bytes]) -> tuple[int, str]:
    """Size and SHA-256 (hex) of ``content`` from its start; leaves it rewound."""
    content.seek(0)
    sha, size = hashlib.sha256(), 0
    while chunk := content.read(CHUNK):
        sha.update(chunk)
        size += len(chunk)
    content.seek(0)
    return size, sha.hexdigest()


def verify(store: BlobStore, item: AttachmentItem) -> str:
    """Read the stored file back: COMPLETE when size and SHA-256 match the item, else PARTIAL or MISSING."""
    try:
        with store.open_read(item.storage_name) as stored:
            size, sha = digest(stored)
    except FileNotFoundError:
        return MISSING
    return COMPLETE if (size, sha) == (int(item.size), item.sha256) else PARTIAL


@capacity.access_pattern("attachments.attach")
def attach(
    store: BlobStore,
    *,
    tenant: str,
    project_key: str,
    number: int,
    filename: str,
    content: IO[bytes],
    content_type: str,
    by: str,
    max_bytes: int,
    attachment_id: str | None = None,
) -> AttachmentItem:
    """PutItem Attaching (2 WCU) → save → verify → UpdateItem Attached (2 WCU): 4 WCU in all.

    ``attachment_id`` (the form's idempotency key, a ULID) makes it exactly once: the same key
    again finds the attachment it began (+1 RCU) and raises AlreadyBegun with it (``.item``), or
    AttachFailed when that first attach failed; this call's own put, retried by botocore after a
    lost answer, is recognised and carried on.

    Raises EmptyFile or FileTooLarge before writing anything, AttachFailed when the file could
    not be stored and verified (the partial file is removed and the item ends Failed — or stays
    Attaching for the repair job when even that failed).
    """
    size, sha = digest(content)
    if size == 0:
        raise EmptyFile("The file is empty.")
    if size > max_bytes:
        raise FileTooLarge(f"The file is {size} bytes; the limit is {max_bytes}.", size=size, limit=max_bytes)
    try:
        item = ops.attachment_begin(
            tenant=tenant,
            project_key=project_key,
            number=number,
            filename=filename,
            size=size,
            sha256=sha,
            content_type=content_type,
            by=by,
            attachment_id=attachment_id,
        )
    except AlreadyBegun as earlier:  # the same form sent again: its first submission does the work
        if earlier.item.state == FAILED:
            raise AttachFailed(
                "The file could not be stored; nothing was attached.", reason=earlier.item.reason
            ) from earlier
        raise  # the caller shows earlier.item: Attached (or still Attaching, or detached since)
    try:
        store.save(item.storage_name, content)
        outcome = verify(store, item)
    except Exception as error:  # noqa: BLE001  (any storage failure rolls the attach back)
        log.warning("storing %s failed", item.storage_name, exc_info=True)
        outcome = f"storage error: {type(error).__name__}"
    if outcome == COMPLETE:
        try:
            return ops.attachment_complete(item, same_visit=True)
        except ChangedSinceRead as error:
            if error.current == ATTACHED:  # the repair job verified and completed it first
                return ops.attachment_get_by_key(item.pk, item.attachment_id, consistent=True) or item
            outcome = f"claimed by the repair job while {error.current}"
    reason = f"verification: file {outcome}" if outcome in (PARTIAL, MISSING) else outcome
    _roll_back(store, item, reason=reason)
    raise AttachFailed("The file could not be stored; nothing was attached.", reason=reason)


def _roll_back(store: BlobStore, item: AttachmentItem, *, reason: str) -> None:
    # File first, then the state: if the delete fails the item stays in the in_flight index and
    # the repair job retries; marking it Failed first could leave a file no item accounts for.
    try:
        store.delete(item.storage_name)
        ops.attachment_fail(item, reason=reason)
    except ChangedSinceRead:
        pass  # the repair job claimed it: it finishes the rollback
    except Exception:  # noqa: BLE001  (left Attaching: the repair job will roll it back)
        log.warning("rollback of %s left to the repair job", item.storage_name, exc_info=True)


@capacity.access_pattern("attachments.detach")
def detach(store: BlobStore, item: AttachmentItem, *, by: str) -> AttachmentItem:
    """UpdateItem Detaching (2 WCU) → delete the file → UpdateItem Detached (2 WCU).

    Raises ChangedSinceRead when the attachment is not Attached (nothing changed), and
    DetachIncomplete when the file could not be deleted (hidden; the repair job finishes it).
    """
    ops.attachment_detach_begin(item, by=by)
    try:
        store.delete(item.storage_name)
    except Exception as error:  # Detaching stays in the index: the repair job deletes it later
        log.warning("deleting %s failed; left Detaching", item.storage_name, exc_info=True)
        raise DetachIncomplete("The file could not be deleted yet; it will be removed shortly.") from error
    try:
        return ops.attachment_detach_complete(item)
    except ChangedSinceRead:  # the repair job finished it meanwhile
        return ops.attachment_get_by_key(item.pk, item.attachment_id, consistent=True) or item


@dataclass
class ReconcileReport:
    """What a repair run found in the in_flight index and did about it."""

    before: str
    examined: int = 0
    completed: int = 0  # Attaching with a verified file → Attached
    rolled_back: int = 0  # Attaching without a complete file → Failed
    partial_files_removed: int = 0
    detached: int = 0  # Detaching → file deleted (if still there) → Detached
    files_deleted: int = 0
    moved_on: int = 0  # changed state after the index was read: someone else finished it
    errors: int = 0  # storage trouble: left in the index for the next run

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@capacity.access_pattern("attachments.reconcile")
def reconcile(
    store: BlobStore,
    *,
    before: datetime,
    limit: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> ReconcileReport:
    """Query in_flight (8 Queries, 0.5 RCU per 4 KB each) + per item: storage work and 2–5 WCU.

    Every attachment that entered Attaching or Detaching before ``before``, oldest first:
    Attaching with a verified file → Attached; Attaching without one → claimed, partial file
    removed, Failed; Detaching → file deleted if still there, Detached.
    """
    report = ReconcileReport(before=before.isoformat())
    for item in ops.attachments_in_flight(before=before, limit=limit):
        report.examined += 1
        try:
            if item.state == ATTACHING:
                _repair_attaching(store, item, report)
            elif item.state == DETACHING:
                had_file = store.exists(item.storage_name)
                store.delete(item.storage_name)
                report.files_deleted += had_file
                ops.attachment_detach_complete(item)
                report.detached += 1
        except ChangedSinceRead:
            report.moved_on += 1
        except Exception:  # noqa: BLE001  (one bad file must not stop the run; it stays in the index)
            log.warning("could not repair %s", item.storage_name, exc_info=True)
            report.errors += 1
        if on_progress is not None:
            on_progress(report.examined)
    return report


def _repair_attaching(store: BlobStore, item: AttachmentItem, report: ReconcileReport) -> None:
    outcome = verify(store, item)
    if outcome == COMPLETE:
        ops.attachment_complete(item)
        report.completed += 1
        return
    ops.attachment_claim(item, reason=f"repair: file {outcome}")
    store.delete(item.storage_name)  # raises → stays Attaching (claimed), retried next run
    report.partial_files_removed += outcome == PARTIAL
    ops.attachment_fail(item, reason=f"repair: file {outcome}")
    report.rolled_back += 1


@capacity.access_pattern("attachments.remove_all")
def remove_all(store: BlobStore, *, tenant: str, project_key: str, number: int) -> tuple[int, int]:
    """Every attachment of a deleted issue: its stored file deleted, then its item (DeleteItem) — (removed, left).

    Query pk = issue, every state, consistent (1 RCU per started 4 KB: ~13 items of ~300 B), then per
    attachment a file delete and a DeleteItem (1 WCU, + 1 for its in_flight entry when it has one).
    The file goes first, so an item is never removed while its file stays (a run cut short is
    resumed by running it again). An upload still Attaching is left (``left``): its request or
    the repair job ends it, and the caller runs this again later.
    """
    removed = left = 0
    listed = ops.attachment_list(tenant=tenant, project_key=project_key, number=number, states=STATES, consistent=True)
    for item in listed:
        if item.state == ATTACHING:
            left += 1
            continue
        if item.storage_name:
            store.delete(item.storage_name)
        item.delete()
        removed += 1
    return removed, left
