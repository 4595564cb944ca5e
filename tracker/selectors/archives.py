"""Archived events tables, as the admin and ``manage.py restore_event_table --list`` show them.

Read from the archive store (``storages["archive"]``: the filesystem or S3), not from DynamoDB.
"""

from __future__ import annotations

from tracker.models import RetiredSlug
from tracker.storage import DjangoArchiveStore

OFFBOARDING_UNFINISHED = (
    "A team's offboarding has begun and not finished (Retired slugs: offboarding under way): a restore now could "
    "bring that team's events back where its offboarding does not look. Run the offboarding again until it "
    "finishes, then restore"
)


def archive_names() -> list[str]:
    """Names of the archived tables in archive storage (what restore accepts): one listing of ``events/``."""
    store = DjangoArchiveStore()
    return sorted({name.split("/")[1] for name in store.list("events") if name.endswith("manifest.json")})


def restore_refusal() -> str | None:
    """Why a restore must not start now, or None: one EXISTS query on the retired slugs.

    While a team's offboarding has begun and not finished, a restore between two of its runs would write the
    team's events back into a table that its delete list, taken at its export, does not name. The admin's
    restore form and ``manage.py restore_event_table`` ask this before queueing or running the job; while an
    offboarding *runs*, the events archives' shared lock refuses a restore run too (``tracker.jobs``).
    """
    unfinished = RetiredSlug.objects.filter(reason=RetiredSlug.Reason.OFFBOARDING).exists()
    return OFFBOARDING_UNFINISHED if unfinished else None
