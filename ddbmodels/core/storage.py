"""Where archived tables go: a tiny storage protocol, so ddbmodels stays free of Django.

``patterns.time_series`` writes and reads archives through any object with the five methods of
``ArchiveStore``. The Django side adapts its storage API (the filesystem, or S3 through
django-storages) to it; ``LocalDirStore`` is the filesystem version used by tests and benchmarks.

Names are relative, ``/``-separated paths such as ``events/<table>/data.jsonl.gz``. The one
promise every store must keep: an object written with ``open_write`` appears whole when the
``with`` block ends without an exception, and not at all (an older version stays as it was)
when the block raises or the process dies. The archive's crash-safety rests on it.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Protocol, runtime_checkable


@runtime_checkable
class ArchiveStore(Protocol):
    """Binary objects by name; whole-object writes."""

    def open_write(self, name: str) -> AbstractContextManager[IO[bytes]]:
        """A binary file to write; the object appears (or is replaced) atomically on a clean exit."""
        ...

    def open_read(self, name: str) -> AbstractContextManager[IO[bytes]]:
        """A binary file to read; FileNotFoundError when there is no such object."""
        ...

    def exists(self, name: str) -> bool: ...

    def delete(self, name: str) -> None:
        """Remove the object; nothing happens when it does not exist."""
        ...

    def list(self, prefix: str) -> builtins.list[str]:
        """Names of the objects that start with ``prefix``, sorted."""
        ...


class LocalDirStore:
    """An ``ArchiveStore`` in a directory: each write goes to a temporary file, fsynced, then renamed."""

    TEMP_PREFIX = ".tmp-"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.root = Path(path).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"LocalDirStore({str(self.root)!r})"

    def path(self, name: str) -> Path:
        """The file behind ``name``; refuses names that would leave the directory."""
        parts = name.split("/")
        if not name or name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"invalid archive object name: {name!r}")
        if any(p.startswith(self.TEMP_PREFIX) for p in parts):
            raise ValueError(f"archive object names may not start with {self.TEMP_PREFIX!r}: {name!r}")
        return self.root.joinpath(*parts)

    @contextlib.contextmanager
    def open_write(self, name: str) -> Iterator[IO[bytes]]:
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f"{self.TEMP_PREFIX}{target.name}-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as file:
                yield file
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, target)  # atomic on POSIX: readers see the old object or the new one
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        _fsync_dir(target.parent)

    @contextlib.contextmanager
    def open_read(self, name: str) -> Iterator[IO[bytes]]:
        with open(self.path(name), "rb") as file:
            yield file

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(name).unlink()

    def list(self, prefix: str) -> builtins.list[str]:
        folder, _, _ = prefix.rpartition("/")
        start = self.path(folder) if folder else self.root  # walk only below the prefix's folder
        if not start.is_dir():
            return []
        names = []
        for file in start.rglob("*"):
            relative = file.relative_to(self.root).as_posix()
            if file.is_file() and relative.startswith(prefix) and not file.name.startswith(self.TEMP_PREFIX):
                names.append(relative)
        return sorted(names)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (a crash right after it must not bring the old name back)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
