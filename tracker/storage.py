"""Archive storage over Django's storage API (filesystem by default, S3 through django-storages).

ddbmodels' archive functions speak a tiny protocol (``ddbmodels.archive.ArchiveStore``); this
adapter gives them ``storages["archive"]`` from the ``STORAGES`` setting.
"""

from __future__ import annotations

import builtins
import contextlib
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import Storage, storages


class DjangoArchiveStore:
    """ArchiveStore on a Django storage: writes spool to a temp file, then one ``save``."""

    def __init__(self, storage: Storage | None = None) -> None:
        self.storage = storage if storage is not None else storages["archive"]

    @contextlib.contextmanager
    def open_write(self, name: str) -> Iterator[IO[bytes]]:
        with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024) as spool:
            yield spool  # type: ignore[misc]
            spool.seek(0)
            # Replace, never rename: the archive's names are fixed (the manifest points at them).
            if self.storage.exists(name):
                self.storage.delete(name)
            saved = self.storage.save(name, File(spool, name=name))
            if saved != name:
                raise OSError(f"storage saved {name} as {saved}")

    @contextlib.contextmanager
    def open_read(self, name: str) -> Iterator[IO[bytes]]:
        with self.storage.open(name, "rb") as handle:
            yield handle

    def exists(self, name: str) -> bool:
        return bool(self.storage.exists(name))

    def delete(self, name: str) -> None:
        self.storage.delete(name)

    def list(self, prefix: str) -> builtins.list[str]:
        """Names under ``prefix`` (a folder), recursively, sorted."""
        found: builtins.list[str] = []
        self._walk(prefix.rstrip("/"), found)
        return sorted(found)

    def _walk(self, folder: str, found: builtins.list[str]) -> None:
        try:
            dirs, files = self.storage.listdir(folder)
        except FileNotFoundError:
            return
        found.extend(f"{folder}/{name}" if folder else name for name in files)
        for sub in dirs:
            self._walk(f"{folder}/{sub}" if folder else sub, found)

    def describe(self) -> dict[str, Any]:
        return {"backend": type(self.storage).__name__}
