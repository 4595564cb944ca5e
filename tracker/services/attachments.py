"""Attachment writes: members attach and detach files; the repair job finishes what crashes left.

Files live in Django's "default" storage (the filesystem, or S3 through django-storages) under
``attachments/<tenant>/<PROJECT>/<number>/<id>/<safe name>``; their state lives in DynamoDB and
moves through ``ddbmodels.attachment_flow``, which speaks to storage through ``DjangoBlobStore``.
"""

from __future__ import annotations

import mimetypes
from datetime import timedelta
from typing import IO, Any, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import Storage, storages

from ddbmodels import attachments
from ddbmodels.attachments import ATTACHED, DETACHING, AttachmentItem, clean_filename
from ddbmodels.core.errors import ChangedSinceRead
from ddbmodels.core.keys import utcnow
from ddbmodels.issues import IssueItem
from tracker.jobs import JobRun
from tracker.models import Membership
from tracker.services import activity
from tracker.services.permissions import require_role

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


def attachment_add(*, membership: Membership, issue: IssueItem, upload: File, filename: str) -> AttachmentItem:
    """Attach ``upload`` to the issue as ``filename`` (members and owners).

    Raises BadFilename, EmptyFile or FileTooLarge before anything is written, AttachFailed when
    storage did not take the file (nothing attached, nothing left behind).
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
    )
    activity.record(
        issue,
        kind="attachment.added",
        actor=membership.user.get_username(),
        data={"filename": item.filename, "size": int(item.size)},
    )
    return item


def attachment_detach(*, membership: Membership, issue: IssueItem, attachment: AttachmentItem) -> AttachmentItem:
    """Detach the attachment (read consistently by the caller) and delete its file (members and owners).

    Raises ChangedSinceRead when it is not Attached (nothing changes), DetachIncomplete when
    the file could not be deleted yet (hidden now; the repair job deletes it).
    """
    require_role(membership, "member")
    if attachment.state != ATTACHED:  # read consistently by the caller: refuse without a (charged) failed write
        raise ChangedSinceRead(
            f"{attachment.filename} is {attachment.state.lower()}", current=attachment.state, wanted=DETACHING
        )
    item = attachments.detach(DjangoBlobStore(), attachment, by=membership.user.get_username())
    activity.record(
        issue, kind="attachment.removed", actor=membership.user.get_username(), data={"filename": item.filename}
    )
    return item


def attachment_open(attachment: AttachmentItem) -> File:
    """The stored file, open for reading; FileNotFoundError when storage lost it."""
    return DjangoBlobStore().open_read(attachment.storage_name)


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
