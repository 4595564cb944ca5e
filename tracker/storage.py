"""Archive storage over Django's storage API (filesystem by default, S3 through django-storages).

ddbmodels' archive functions speak a tiny protocol (``ddbmodels.archive.ArchiveStore``); this
adapter gives them ``storages["archive"]`` from the ``STORAGES`` setting.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import Storage, storages

TEMP_PREFIX = ".tmp-"  # a write in progress on a folder storage: never listed


class DjangoArchiveStore:
    """ArchiveStore on a Django storage: writes spool to a temp file, then one ``save``."""

    def __init__(self, storage: Storage | None = None) -> None:
        self.storage = storage if storage is not None else storages["archive"]

    @contextlib.contextmanager
    def open_write(self, name: str) -> Iterator[IO[bytes]]:
        """The object appears whole, or not at all (an older version stays), as ``ArchiveStore`` promises.

        On a folder (FileSystemStorage) the spool goes to a temporary file beside the target, fsynced, then
        ``os.replace``, then the folder fsynced (so the rename survives a power loss): readers see the old
        object or the new one, never none (an archive's manifest is swapped this way when offboarding
        rewrites it). An object store that overwrites (S3's PUT, ``file_overwrite``) replaces in one request;
        any other storage deletes, then saves.
        """
        with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024) as spool:
            yield spool  # type: ignore[misc]
            spool.seek(0)
            target = self._local_path(name)
            if target is not None:
                self._replace_file(target, spool)
                return
            # Replace, never rename: the archive's names are fixed (the manifest points at them).
            if not getattr(self.storage, "file_overwrite", False) and self.storage.exists(name):
                self.storage.delete(name)
            saved = self.storage.save(name, File(spool, name=name))
            if saved != name:
                raise OSError(f"storage saved {name} as {saved}")

    def _local_path(self, name: str) -> str | None:
        try:
            return str(self.storage.path(name))  # SuspiciousFileOperation for a name outside the folder
        except NotImplementedError:
            return None  # not a filesystem storage

    def _replace_file(self, target: str, spool: IO[bytes]) -> None:
        folder = os.path.dirname(target)
        os.makedirs(folder, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)
        try:
            with os.fdopen(fd, "wb") as file:
                shutil.copyfileobj(spool, file)
                file.flush()
                os.fsync(file.fileno())
            mode = getattr(self.storage, "file_permissions_mode", None)
            os.chmod(temp, mode if mode is not None else 0o644)  # mkstemp's 0600 is not what save() gives
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        self._fsync_folder(folder)

    @staticmethod
    def _fsync_folder(folder: str) -> None:
        """Make a rename in ``folder`` durable: its entry is on disk once this returns (the file's own fsync is not
        enough). A rewrite deletes the old data file right after swapping the manifest; without this, a power
        loss could bring back the old manifest naming a data file already deleted."""
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

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
        found.extend(f"{folder}/{name}" if folder else name for name in files if not name.startswith(TEMP_PREFIX))
        for sub in dirs:
            self._walk(f"{folder}/{sub}" if folder else sub, found)

    def describe(self) -> dict[str, Any]:
        return {"backend": type(self.storage).__name__}
