"""Upload plumbing shared by the pages that take a file (attachments, imports)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import TooManyFilesSent
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest


class SizeLimitHandler(FileUploadHandler):
    """Stops reading a file part once it passes the limit: the rest is skipped, never spooled.

    ``max_files``: more file parts than this stop the parse at the first one too many (TooManyFilesSent,
    which Django answers with a 400), instead of Django's site-wide DATA_UPLOAD_MAX_NUMBER_FILES (100).
    """

    def __init__(self, request: HttpRequest, limit: int, max_files: int | None = None) -> None:
        super().__init__(request)
        self.limit = limit
        self.max_files = max_files
        self.files = 0
        self.cut_off = False

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        self.files += 1
        if self.max_files is not None and self.files > self.max_files:
            raise TooManyFilesSent(f"More than {self.max_files} file(s) in one upload.")
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        if start + len(raw_data) > self.limit:
            self.cut_off = True
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
