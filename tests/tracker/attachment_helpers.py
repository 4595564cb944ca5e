"""Helpers for the attachment page tests: a media folder, uploads, what storage and DynamoDB hold,
and the proof that a request wrote nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import Client

from ddbmodels import attachments
from ddbmodels.attachments import STATES, AttachmentItem
from ddbmodels.core import capacity
from tests.ddbmodels.attachments.helpers import begin
from tests.tracker.conftest import ATTACHMENT_LIMIT, World

LIMIT = ATTACHMENT_LIMIT  # ATTACHMENT_MAX_BYTES in these tests


def begin_attach(world: World, filename: str, content: bytes = b"x" * 100, number: int = 1) -> AttachmentItem:
    """An attach that died before its file arrived: left in Attaching, an entry of the in_flight index."""
    return begin(number, content, filename, tenant=world.slug, project_key=world.project_key, by=world.member.username)


def upload_url(world: World, number: int = 1) -> str:
    return world.project_url(f"{number}/attachments/")


def item_url(world: World, item: AttachmentItem, suffix: str = "") -> str:
    return world.project_url(f"{item.issue_number}/attachments/{item.attachment_id}/{suffix}")


def upload(
    client: Client,
    world: World,
    content: bytes = b"hello, file",
    filename: str = "notes.txt",
    number: int = 1,
    **data: Any,
) -> HttpResponse:
    return client.post(upload_url(world, number), {"file": SimpleUploadedFile(filename, content), **data})


def raw_upload(client: Client, world: World, filename: str, content: bytes, number: int = 1) -> HttpResponse:
    """A multipart POST written by hand, so the file name reaches Django exactly as given."""
    boundary = "----tracker-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return client.post(upload_url(world, number), body, content_type=f"multipart/form-data; boundary={boundary}")


def items_of(world: World, number: int = 1) -> list[AttachmentItem]:
    """Every attachment of the issue, whatever its state (consistent)."""
    return attachments.attachment_list(
        tenant=world.slug, project_key=world.project_key, number=number, states=STATES, consistent=True
    )


def only_item(world: World, number: int = 1) -> AttachmentItem:
    (item,) = items_of(world, number)
    return item


def files_in(media: Path) -> list[str]:
    return sorted(p.relative_to(media).as_posix() for p in media.rglob("*") if p.is_file())


@contextmanager
def nothing_written(media: Path, *worlds: World) -> Iterator[capacity.CapacityMeter]:
    """Assert the block attempts no DynamoDB write, changes no attachment, and stores no file."""
    before = [[i.serialize() for i in items_of(w)] for w in worlds]
    files = files_in(media)
    with capacity.measure() as meter:
        yield meter
    writes = {op: n for op, n in meter.by_operation.items() if op in capacity.WRITE_OPERATIONS}
    assert writes == {}, f"writes attempted: {writes}"
    assert [[i.serialize() for i in items_of(w)] for w in worlds] == before
    assert files_in(media) == files
