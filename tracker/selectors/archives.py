"""Archived events tables, as the admin and ``manage.py restore_event_table --list`` show them.

Read from the archive store (``storages["archive"]``: the filesystem or S3), not from DynamoDB.
"""

from __future__ import annotations

from tracker.storage import DjangoArchiveStore


def archive_names() -> list[str]:
    """Names of the archived tables in archive storage (what restore accepts): one listing of ``events/``."""
    store = DjangoArchiveStore()
    return sorted({name.split("/")[1] for name in store.list("events") if name.endswith("manifest.json")})
