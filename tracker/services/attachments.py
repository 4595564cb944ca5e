"""Attachment writes: members attach and detach files; the repair job finishes what crashes left.

Files live in Django's "default" storage (the filesystem, or S3 through django-storages) under
``attachments/<tenant>/<PROJECT>/<number>/<id>/<safe name>``; their state lives in DynamoDB and
moves through ``ddbmodels.attachment_flow``, which speaks to storage through ``DjangoBlobStore``.
"""

from __future__ import annotations

import logging
import mimetypes
from datetime import timedelta
from typing import IO, Any, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import Storage, storages

from ddbmodels import attachments
from ddbmodels.attachments import ATTACHED, DETACHING, AttachmentItem, DetachIncomplete, clean_filename
from ddbmodels.core.errors import ChangedSinceRead, NotFound
from ddbmodels.core.keys import utcnow
from ddbmodels.events import Kind
from ddbmodels.issues import IssueItem
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.services import activity
from tracker.services.permissions import require_role

log = logging.getLogger(__name__)
DEFAULT_CONTENT_TYPE = "application/octet-stream"


class DjangoBlobStore:
    """``attachment_flow.BlobStore`` on a Django storage (``storages["default"]`` unless given)."""

    def __init__(self, storage: Storage | None = None) -> None:
        self.storage = storage if storage is not None else storages["default"]

    def save(self, name: str, content: IO[bytes]) -> None:
        # A TemporaryUploadedFile is moved into place by FileSystemStorage, not copied.
        wrapped = content if isinstance(content, File) else File(content, name=name.rsplit("/", 1)[-1])
        saved = self.storage.save(name, wrapped)
        if saved != name:  # the storage picked another name: never keep a file no item points at
            self.storage.delete(saved)
            raise OSError(f"storage saved {name} as {saved}")

    def open_read(self, name: str) -> File:
        return self.storage.open(name, "rb")

    def exists(self, name: str) -> bool:
        return bool(self.storage.exists(name))

    def delete(self, name: str) -> None:
        self.storage.delete(name)


def content_type_for(filename: str) -> str:
    """The content type a name suggests (never the browser's claim)."""
    return mimetypes.guess_type(filename)[0] or DEFAULT_CONTENT_TYPE


def attachment_add(
    *, membership: Membership, issue: IssueItem, upload: File, filename: str, idempotency_key: str | None = None
) -> AttachmentItem:
    """Attach ``upload`` to the issue as ``filename`` (members and owners).

    Raises BadFilename, EmptyFile or FileTooLarge before anything is written, AttachFailed when
    storage did not take the file (nothing attached, nothing left behind). ``idempotency_key``
    (a ULID) becomes the attachment's id: the same form sent again raises AlreadyBegun with the
    attachment its first submission made (``.item``), writing nothing.
    """
    require_role(membership, "member")
    name = clean_filename(filename)
    item = attachments.attach(
        DjangoBlobStore(),
        tenant=issue.tenant,
        project_key=issue.project_key,
        number=int(issue.number),
        filename=name,
        content=cast(IO[bytes], upload),
        content_type=content_type_for(name),
        by=membership.user.get_username(),
        max_bytes=settings.ATTACHMENT_MAX_BYTES,
        attachment_id=idempotency_key,
    )
    activity.record(
        issue,
        kind=Kind.ATTACHMENT_ADDED,
        actor=membership.user.get_username(),
        data={"filename": item.filename, "size": int(item.size)},
    )
    return item


def attachment_detach(*, membership: Membership, issue: IssueItem, attachment: AttachmentItem) -> bool:
    """Detach the attachment (read consistently by the caller) and delete its file (members and owners).

    True when the file is deleted too; False when deleting it failed (the attachment is hidden
    now and the repair job deletes the file). Raises ChangedSinceRead, with the attachment's
    ``filename`` and the state it is in, when it is not Attached (nothing changes).
    """
    require_role(membership, "member")
    refused = {"wanted": DETACHING, "filename": attachment.filename}
    if attachment.state != ATTACHED:  # read consistently by the caller: refuse without a (charged) failed write
        raise ChangedSinceRead(
            f"{attachment.filename} is {attachment.state.lower()}", current=attachment.state, **refused
        )
    try:
        attachments.detach(DjangoBlobStore(), attachment, by=membership.user.get_username())
    except DetachIncomplete:
        return False  # hidden, and the activity not recorded: as before the repair job finishes it
    except ChangedSinceRead as error:  # it moved after the caller's read: name it like the check above
        raise ChangedSinceRead(str(error), current=error.current, **refused) from error
    activity.record(
        issue,
        kind=Kind.ATTACHMENT_REMOVED,
        actor=membership.user.get_username(),
        data={"filename": attachment.filename},
    )
    return True


def attachment_open(attachment: AttachmentItem) -> File:
    """The stored file, open for reading; NotFound (logged) when storage lost it."""
    try:
        return DjangoBlobStore().open_read(attachment.storage_name)
    except FileNotFoundError as error:
        log.error("attachment %s is Attached but storage has no %s", attachment.attachment_id, attachment.storage_name)
        raise NotFound("No such attachment.", attachment_id=attachment.attachment_id) from error


def reconcile_attachments_job(
    run: JobRun, *, older_than_seconds: int | None = None, limit: int | None = None
) -> dict[str, Any]:
    """Finish or roll back every attachment stuck in Attaching or Detaching (the in_flight index)."""
    seconds = settings.ATTACHMENT_STUCK_SECONDS if older_than_seconds is None else older_than_seconds
    run.progress(stage="querying in_flight")
    report = attachments.reconcile(
        DjangoBlobStore(),
        before=utcnow() - timedelta(seconds=seconds),
        limit=limit,
        on_progress=lambda done: run.progress(stage="repairing", done=done),
    )
    return {"older_than_seconds": seconds, **report.as_dict()}
