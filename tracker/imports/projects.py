"""The projects an import writes: held closed to new issues while it writes, opened when it is done.

An import writes its issues with BatchWriteItem, whose puts cannot be conditional: an issue
somebody created meanwhile under a number the export also has would be overwritten. So, before
the first write, every project of the import is *held* (``ProjectItem.importing`` = the import's
job name; ``tracker.services.issues`` refuses new issues with a 409 page saying why), and after
the last write it is *released*. A held project whose import stops stays held until a run of the
same import finishes it (the web job releases it when it gives up).

An existing project may only receive numbers above its highest: importing ``1 … 200`` into a
project that has ``WEB-1 … WEB-50`` is refused before anything is written. A resumed import (its
checkpoint exists) or ``--restart`` skips that check: the numbers there are its own. An issue
create reads the hold consistently just before it takes a number, so one that read it a moment
before the hold was set may still be on its way: the highest number is read only after
``settle_seconds`` (one DynamoDB request's longest life: attempts × timeouts + backoff, ≈ 12 s
by default), so that issue is counted, not overwritten.

Costs: per project, creating it (1 WCU + 1 for its index entry) or holding it (UpdateItem, 1 WCU)
and, for an existing one, its highest number (Query, Limit 1, consistent: 1 RCU); releasing it
1 WCU.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ddbmodels import issues as ddb_issues
from ddbmodels import jobs
from ddbmodels.core import connection
from ddbmodels.core.errors import AlreadyExists, InvalidInput
from tracker.cache import invalidate
from tracker.imports.records import Record
from tracker.selectors.projects import project_cache_key, project_list_cache_key


@dataclass(frozen=True)
class Held:
    """A project an import holds: its key, and whether the import created it."""

    key: str
    created: bool


def hold(
    *,
    tenant: str,
    job: str,
    projects: dict[str, list[Record]],
    created_by: str,
    names: dict[str, str] | None = None,
    own_numbers: bool = False,
    settle_seconds: float | None = None,
) -> list[Held]:
    """Create each missing project held by ``job``, or hold the existing one; refuse numbers it already has.

    ``own_numbers``: the numbers already in these projects may be this import's (a resume or a
    restart), so they are not checked. Raises InvalidInput (nothing written by the import, every
    project it held released) when an existing project already has numbers the export brings, and
    AlreadyExists when another import holds one.
    """
    resumed = own_numbers or _started(job)
    held: list[Held] = []
    try:
        for key in sorted(projects):
            try:
                ddb_issues.project_create(
                    tenant=tenant, key=key, name=(names or {}).get(key, key), created_by=created_by, importing=job
                )
                held.append(Held(key, created=True))
            except AlreadyExists:
                ddb_issues.project_import_start(tenant=tenant, key=key, job=job)
                held.append(Held(key, created=False))
            invalidate(project_cache_key(tenant, key))
        existing = [h.key for h in held if not h.created]
        if existing and not resumed:
            time.sleep(settle_seconds if settle_seconds is not None else _request_life())
            for key in existing:
                _refuse_overlap(tenant, key, projects[key])
    except BaseException:
        release(tenant=tenant, job=job, keys=[h.key for h in held])
        raise
    invalidate(project_list_cache_key(tenant))
    return held


def release(*, tenant: str, job: str, keys: list[str]) -> None:
    """Open the projects ``job`` holds to new issues again (a project another import holds is left alone)."""
    for key in keys:
        ddb_issues.project_import_finish(tenant=tenant, key=key, job=job)
        invalidate(project_cache_key(tenant, key))
    invalidate(project_list_cache_key(tenant))


def _refuse_overlap(tenant: str, key: str, records: list[Record]) -> None:
    """InvalidInput when the project already has a number at or above the export's lowest (Query, 1 RCU)."""
    lowest = min((r.number for r in records), default=None)
    following = ddb_issues.issue_number_next(tenant=tenant, project_key=key)
    if lowest is not None and following > lowest:
        raise InvalidInput(
            f"{key} already has issues up to {key}-{following - 1} and the export starts at "
            f"{lowest}: importing would overwrite them. Import into a new project key.",
            key=key,
        )


def _request_life() -> float:
    """The longest a DynamoDB request may take with its retries: attempts × (connect + read) + backoff."""
    settings = connection.current()
    return settings.max_attempts * (settings.connect_timeout + settings.read_timeout) + settings.max_attempts


def _started(job: str) -> bool:
    state = jobs.job_state(job)
    return bool(state is not None and state.checkpoint)
