"""Everything of a team outside its DynamoDB items and archives: found, removed, and reported place by place.

Offboarding deletes the team's items (``ddbmodels.tenants``), its search documents and waiting
uploads; what a team leaves elsewhere is here, one module per place:

    job checkpoints   shared jobs' checkpoints naming the team (``job_checkpoints``)
    schedules         beat schedules of tasks for the team (``schedules``)
    job results       Celery's records: the team's tasks deleted, shared results without the team
                      (``celery_results``: TaskResult rows, or a Redis result backend's keys)
    admin log         the admin log's copies of the team's items edited by staff (``admin_log``)
    staff audit       the staff audit's entries of raw edits of the team's items (``tracker.services.admin.audit``)
    redis             cached pages and counts, hot-key and capacity statistics, job history, tasks waiting in
                      the broker's queues (``redis_places``)
    files             the team's folders in file storage, orphans and empty folders included (``files``)

Each place tells the team's traces by structure, never by words (``names``): a key ``<slug>#…``, a job
``<kind>:<slug>:…``, a task whose team argument (``tenant=``, …) is the slug; a schedule's name, a title
or an error's words never make a record the team's.

``sweep`` removes and says per place what it removed (the offboarding report lists it); ``left``
counts what is there without changing anything ("does this team still hold data?",
``Tenant.data_left``). Both read every place once: SCANs of Redis (every key visited once per pass,
a few hundred a call), LIKE queries of four SQL tables, one listing per storage folder, one GetItem
per shared job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracker.services.admin import audit as staff_audit
from tracker.services.team_leftovers import admin_log, celery_results, files, job_checkpoints, redis_places, schedules
from tracker.services.team_leftovers.names import Team

__all__ = ["PLACES", "Team", "describe", "left", "sweep"]

Place = Callable[..., Any]
PLACES: dict[str, dict[str, Place]] = {
    "job checkpoints": {"shared jobs' checkpoints": job_checkpoints.shared_checkpoints},
    "schedules": {"tasks scheduled for the team": schedules.team_schedules},
    "job results": {"task records": celery_results.task_results, "task records in Redis": celery_results.redis_results},
    "admin log": {"copies of edited items": admin_log.item_log_entries},
    "staff audit": {
        "edits of the team's items": lambda team, apply: staff_audit.team_item_entries(team.slug, apply=apply)
    },
    "redis": {
        "keys (cache, locks)": redis_places.keys,
        "hot-key statistics": redis_places.hot_keys_entries,
        "capacity statistics": redis_places.capacity_entries,
        "job history": redis_places.job_history,
        "queued tasks": redis_places.queued_tasks,
    },
    "files": {"team folders": files.team_folders},
}


def _total(found: Any) -> int:
    return sum(found.values()) if isinstance(found, dict) else int(found)


def _visit(team: Team, *, apply: bool) -> dict[str, dict[str, Any]]:
    report: dict[str, dict[str, Any]] = {}
    for place, parts in PLACES.items():
        report[place] = {what: find(team, apply=apply) for what, find in parts.items()}
    return report


def sweep(team: Team) -> dict[str, dict[str, Any]]:
    """Remove the team from every place; per place, per part, what was removed (counts, never the team's words)."""
    return _visit(team, apply=True)


def left(team: Team) -> dict[str, int]:
    """Per place, how many of the team's traces are there (nothing is changed)."""
    return {place: sum(_total(found) for found in parts.values()) for place, parts in _visit(team, apply=False).items()}


def describe(places: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """A report's places in words: (place, "part: n; part: n deleted, n redacted") — for the Retired slugs page."""
    lines = []
    for place, parts in places.items():
        said = []
        for what, found in parts.items():
            if isinstance(found, dict):
                said.append(f"{what}: " + ", ".join(f"{n} {kind}" for kind, n in found.items()))
            else:
                said.append(f"{what}: {found}")
        lines.append((place.capitalize(), "; ".join(said)))
    return lines
