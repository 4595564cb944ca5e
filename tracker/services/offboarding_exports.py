"""The offboarding export handed to the team expires: ``OFFBOARDING_EXPORT_DAYS`` after offboarding it is deleted.

The export (``RetiredSlug.archive``: ``offboarding/<team>/<stamp>/`` in archive storage, every run's
folder under ``offboarding/<team>/``) is the one copy of the team's data the product keeps after
offboarding, for the team to fetch. A daily beat job (``expire_offboarding_exports``) deletes every
file under ``offboarding/<team>/`` of each team offboarded more than that many days ago, clears
``RetiredSlug.archive`` and records what it deleted in ``RetiredSlug.report["export_deleted"]``.
The admin's retired-slug page shows until when each export is available. No DynamoDB call: one
database query for the expired records, one listing and one delete per file of archive storage.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from ddbmodels.tenants import EXPORT_ROOT
from tracker.jobs import JobRun
from tracker.models import RetiredSlug
from tracker.storage import DjangoArchiveStore


def export_days() -> int:
    return int(settings.OFFBOARDING_EXPORT_DAYS)


def export_available_until(retired: RetiredSlug) -> datetime | None:
    """When the team's export is deleted (None: offboarding not finished, or no export is kept any more)."""
    if not retired.archive or retired.offboarded_at is None:
        return None
    return retired.offboarded_at + timedelta(days=export_days())


def _prune_empty_folders(store: DjangoArchiveStore, folder: str) -> None:
    """On a filesystem storage, the emptied folders go too (their names are the team's slug)."""
    path = getattr(store.storage, "path", None)
    if path is None:
        return  # object stores have no folders
    with contextlib.suppress(NotImplementedError, OSError):
        top = Path(path(folder))
        for directory in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            with contextlib.suppress(OSError):
                directory.rmdir()
        with contextlib.suppress(OSError):
            os.rmdir(top)


def delete_expired_exports(*, now: datetime | None = None) -> dict[str, Any]:
    """Delete the exports of teams offboarded more than ``OFFBOARDING_EXPORT_DAYS`` ago; what was deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=export_days())
    store = DjangoArchiveStore()
    expired = RetiredSlug.objects.filter(reason=RetiredSlug.Reason.OFFBOARDED, offboarded_at__lte=cutoff).exclude(
        archive=""
    )
    deleted: dict[str, int] = {}
    for retired in expired:
        folder = f"{EXPORT_ROOT}/{retired.slug}"
        names = store.list(f"{folder}/")
        for name in names:
            store.delete(name)
        _prune_empty_folders(store, folder)
        retired.report = {
            **retired.report,
            "export_deleted": {
                "at": now.isoformat(),
                "files": len(names),
                "archive": retired.archive,
                "days": export_days(),
            },
        }
        retired.archive = ""
        retired.save(update_fields=["archive", "report"])
        deleted[retired.slug] = len(names)
    return {"days": export_days(), "deleted": deleted}


def expire_offboarding_exports_job(run: JobRun) -> dict[str, Any]:
    """Daily: delete the offboarding exports past ``OFFBOARDING_EXPORT_DAYS``."""
    run.progress(stage="deleting expired exports")
    return delete_expired_exports()
