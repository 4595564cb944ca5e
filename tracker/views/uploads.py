"""Upload plumbing shared by the pages that take a file (attachments, imports)."""

from __future__ import annotations

from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest


class SizeLimitHandler(FileUploadHandler):
    """Stops reading a file part once it passes the limit: the rest is skipped, never spooled."""

    def __init__(self, request: HttpRequest, limit: int) -> None:
        super().__init__(request)
        self.limit = limit
        self.cut_off = False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        if start + len(raw_data) > self.limit:
            self.cut_off = True
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
