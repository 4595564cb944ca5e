"""Helpers for the attachment tests: a table of their own, attachments, index contents, odd stores."""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import IO

import ddbmodels
from ddbmodels import attachments as ops
from ddbmodels.attachments.flow import LocalBlobStore, attach, digest
from ddbmodels.attachments.model import IN_FLIGHT, INTERMEDIATE, AttachmentItem
from ddbmodels.core.keys import utcnow

Key = tuple[str, str]
DATA = b"%PDF-1.7 pretend this is a report\n" * 40


@contextmanager
def fresh_table() -> Iterator[None]:
    """A fresh attachments table under a prefix of its own, so the whole index is the caller's."""
    previous = ddbmodels.current()
    ddbmodels.configure(table_prefix=f"{previous.table_prefix}att{uuid.uuid4().hex[:6]}-")
    AttachmentItem.create_table(wait=True, billing_mode="PAY_PER_REQUEST")
    try:
        yield
    finally:
        AttachmentItem.delete_table()
        ddbmodels.configure(table_prefix=previous.table_prefix)


def key(item: AttachmentItem) -> Key:
    return (item.pk, item.attachment_id)


def begin(
    number: int = 1,
    data: bytes = b"hello attachment",
    name: str = "notes.txt",
    *,
    tenant: str = "acme",
    project_key: str = "WEB",
    by: str = "ann",
) -> AttachmentItem:
    """An attachment in Attaching (its file not written yet), with ``data``'s size and digest."""
    size, sha = digest(io.BytesIO(data))
    where = {"tenant": tenant, "project_key": project_key, "number": number}
    return ops.attachment_begin(**where, filename=name, size=size, sha256=sha, content_type="text/plain", by=by)


def attach_bytes(store: LocalBlobStore, data: bytes = DATA, name: str = "report.pdf") -> AttachmentItem:
    """Attach ``data`` to acme WEB-7 through the whole flow."""
    where = {"tenant": "acme", "project_key": "WEB", "number": 7}
    content = io.BytesIO(data)
    return attach(
        store, **where, filename=name, content=content, content_type="application/pdf", by="ann", max_bytes=10_000
    )


def index_keys() -> set[Key]:
    """Every entry of the in_flight index (all states, all shards)."""
    later = utcnow() + timedelta(days=1)
    return {key(item) for item in ops.attachments_in_flight(before=later)}


def table_items() -> list[AttachmentItem]:
    """Every item of the table, read consistently."""
    return list(AttachmentItem.scan(consistent_read=True))


def intermediate_keys() -> set[Key]:
    return {key(item) for item in table_items() if item.state in INTERMEDIATE}


def load(item: AttachmentItem) -> AttachmentItem:
    found = ops.attachment_get_by_key(item.pk, item.attachment_id, consistent=True)
    assert found is not None
    return found


def index_attributes_consistent(item: AttachmentItem) -> bool:
    """Index keys present exactly while intermediate, and naming the state the item is in."""
    if item.state not in INTERMEDIATE:
        return item.in_flight_key is None and item.in_flight_since is None
    return item.in_flight_key == IN_FLIGHT.partition_value(item.state, item) and item.in_flight_since is not None


class FlakyStore(LocalBlobStore):
    """A store whose ``save`` misbehaves on purpose: raises, corrupts, or runs a hook first."""

    def __init__(
        self, path: Path, *, fail: bool = False, corrupt: bool = False, before_save: Callable[[str], None] | None = None
    ) -> None:
        super().__init__(path)
        self.fail, self.corrupt, self.before_save = fail, corrupt, before_save

    def save(self, name: str, content: IO[bytes]) -> None:
        if self.before_save is not None:
            self.before_save(name)
        if self.fail:
            raise OSError("disk full")
        if self.corrupt:
            content = io.BytesIO(content.read()[:-1])
        super().save(name, content)
